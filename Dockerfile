# Builds a self-contained Switchyard binary with `deno compile` and runs it with the embedded
# database in /data. `deno compile` downloads its runtime, so build where the internet is reachable.
FROM denoland/deno:2.5.6 AS build
WORKDIR /app
COPY package.json deno.json deno.lock* ./
COPY src ./src
COPY web ./web
COPY migrations ./migrations
RUN deno install --frozen
RUN deno compile --allow-net --allow-read --allow-write --allow-env --allow-sys \
      --include node_modules/@electric-sql/pglite/dist \
      --include web \
      --include src/store/pglite_template \
      --output /app/switchyard src/runtime/deno.ts

FROM gcr.io/distroless/cc-debian12
COPY --from=build /app/switchyard /switchyard
ENV ROUTER_HOST=0.0.0.0 ROUTER_STORAGE_PATH=/data
# glibc malloc: buffers of 64 KB and more are mapped and unmapped on their own, and freed memory
# is given back, so a burst of streams does not leave the process hundreds of MB larger.
ENV MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=131072
VOLUME /data
EXPOSE 7331
ENTRYPOINT ["/switchyard"]
