# engine serve in a container: Debian 12, the engine and its shared files (plugins, templates, schemas, examples,
# docs), running as an unprivileged user. docs/deploy.md has the Kubernetes manifests that run it.
#   docker build -t engine .
#   docker run --rm -p 8080:8080 -v "$PWD/workflows:/workflows:ro" -e ENGINE_SERVE_TOKENS=... engine
# The build stage installs what scripts/setup.sh installs for a build (no test tools); the runtime stage has only
# the shared libraries the engine links or loads (tests/check_dockerfile.sh keeps the two lists in step).
FROM debian:12 AS build
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      cmake g++ make pkg-config libyaml-cpp-dev nlohmann-json3-dev liblua5.4-dev libpcre2-dev \
      libcurl4-openssl-dev libcli11-dev libvalijson-dev libedit-dev libsqlite3-dev libmicrohttpd-dev nettle-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake cmake
COPY engine engine
COPY schema schema
COPY plugins plugins
COPY templates templates
COPY workflows workflows
COPY docs docs
COPY bench bench
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DENGINE_TESTS=OFF \
    && cmake --build /build -j "$(nproc)" --target engine \
    && cmake --install /build --prefix /opt/engine

FROM debian:12-slim
# runtime libraries: linked (yaml-cpp, PCRE2, SQLite, Nettle, Lua, libedit) and loaded when first needed (libcurl for
# models and grants, libmicrohttpd for engine serve)
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libyaml-cpp0.7 libpcre2-8-0 libsqlite3-0 libnettle8 liblua5.4-0 libedit2 libcurl4 libmicrohttpd12 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home engine
COPY --from=build /opt/engine /usr/local
USER 10001
EXPOSE 8080
# The workflows to serve are mounted at /workflows (a ConfigMap or a volume); the installed examples by default.
ENTRYPOINT ["engine", "serve", "--host", "0.0.0.0", "--port", "8080"]
CMD ["/usr/local/share/engine/workflows"]
