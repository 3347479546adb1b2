/**
 * Imported first by every entry point (src/main.ts; the test preload), before Elysia loads.
 * Elysia decides once, from NODE_ENV at its module load, whether it runs in development mode,
 * and in that mode (1) serves Bun's development error page (stack, source, working folder)
 * when an error handler fails, and (2) builds validation messages that interpolate the
 * received value into a string, which throws for a body like `{"toString":1}` and turned bad
 * input into 500s. talentd runs the same whatever NODE_ENV says.
 */
process.env.NODE_ENV = "production";
