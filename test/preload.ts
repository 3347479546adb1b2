/** Loaded before every test file (bunfig.toml): the app runs as the binary does (src/production.ts). */
import "../src/production";
