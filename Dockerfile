# talentd's container image: the single binary on distroless (glibc, no shell), running as a
# non-root user, its data on a volume. docs/operations.md, "Run in a container".
#
#   docker build -t talentd .
#   docker run -d --name talentd -p 8787:8787 -v talentd-data:/data \
#     -e BASE_URL=http://<this machine's name>:8787 talentd
#
# `docker stop` sends SIGTERM (in-flight requests finish, exit 0); `docker kill -s HUP talentd`
# reloads the catalog. With --read-only, add --tmpfs /tmp (the binary unpacks its libSQL addon
# there at start).

FROM node:22-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npx bun run build \
 && mkdir -p /out/data \
 && cp dist/talentd /out/talentd

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/talentd /usr/local/bin/talentd
COPY --from=build --chown=65532:65532 /out/data /data
ENV DATA_DIR=/data HOST=0.0.0.0 PORT=8787
VOLUME ["/data"]
EXPOSE 8787
USER 65532:65532
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/talentd"]
CMD ["serve"]
