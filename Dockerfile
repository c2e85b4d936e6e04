# Preflight: the HTTP service that rehearses SQLite schema migrations (see README.md and
# docs/container.md).
#
#   docker build -t preflight .
#   docker run --rm -p 8080:8080 -v "$PWD/Config:/app/Config:ro" preflight
#
# The runtime stage is checked without a Docker engine by scripts/check-container-runtime:
# it reads the last stage of this file (the apt-get package list, the groupadd/useradd RUN,
# USER, the COPY destinations, the HEALTHCHECK's bash command and the ENTRYPOINT),
# rebuilds that root file system with debootstrap and runs the ENTRYPOINT inside it.

# ---- build: the official Swift image on Debian 12 (bookworm), the toolchain CI uses ----
FROM swift:6.3.1-bookworm AS build

# The system libraries the package links (Package.swift: CSQLite, CMicroHTTPD, CNettle, CICU).
# Unpinned on purpose: bookworm is a stable release whose security updates replace versions.
# And what scripts/build-engines needs to build the device engines (SQLite as each platform
# builds it): a C compiler, make and tclsh, xz for Debian's source tarballs, pip for PyPI's.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libsqlite3-dev \
        libmicrohttpd-dev \
        nettle-dev \
        libicu-dev \
        gcc \
        libc6-dev \
        make \
        tcl \
        xz-utils \
        python3-pip \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# The device engines, each in /usr/local/lib/preflight/engines/NAME (docs/devices.md): built
# before the sources are copied, so that a change to Preflight's code reuses this layer.
COPY scripts/build-engines scripts/engine-opcode-counter.c scripts/
RUN scripts/build-engines /usr/local/lib/preflight/engines \
    && rm -rf /usr/local/lib/preflight/engines/.apt /usr/local/lib/preflight/engines/.sources

# Package.swift names every target's folder, so all of them must be present to load it.
COPY Package.swift ./
COPY Sources Sources
COPY Benchmarks Benchmarks
COPY Tests Tests
COPY Examples Examples
COPY scripts/man-page scripts/man-page
# The Swift runtime and Foundation are linked in statically: the runtime stage needs no
# Swift toolchain, only the C libraries that `ldd` lists. The man page is made from the
# binary's own --help (scripts/man-page), so that both come from one command syntax.
RUN swift build -c release --static-swift-stdlib --product preflight \
    && install -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/preflight" /usr/local/bin/preflight \
    && mkdir -p /usr/local/share/man/man1 \
    && scripts/man-page /usr/local/bin/preflight >/usr/local/share/man/man1/preflight.1

# ---- runtime: Debian 12 slim with only what the binary links, and man for its page ----
FROM debian:bookworm-slim

# `ldd preflight` needs libsqlite3.so.0 and libmicrohttpd.so.12 (which brings libgnutls30
# and its libraries, among them libnettle8, whose SHA-256 CNettle links) and libicu72 (Android's
# ICU functions and collations, CDeviceSQL); libstdc++6, libgcc-s1 and libc6 are already part of
# bookworm-slim.
# No curl: the HEALTHCHECK below talks HTTP with bash alone. man-db: `man preflight`.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libsqlite3-0 \
        libmicrohttpd12 \
        libicu72 \
        man-db \
    && rm -rf /var/lib/apt/lists/*

# A fixed, numeric non-root user, so that Kubernetes' runAsNonRoot can verify it.
RUN groupadd --gid 10001 preflight \
    && useradd --uid 10001 --gid preflight --no-log-init --home-dir /var/lib/preflight --create-home \
        --shell /usr/sbin/nologin preflight

COPY --from=build /usr/local/bin/preflight /usr/local/bin/preflight
COPY --from=build /usr/local/share/man/man1/preflight.1 /usr/local/share/man/man1/preflight.1
# The device engines: a profile's workers load its engine's libsqlite3.so.0 from here.
COPY --from=build /usr/local/lib/preflight/engines /usr/local/lib/preflight/engines
# Plans, device profiles and preflight.json at a fixed path; mount a directory of your own
# over /app/Config to change them. Relative paths in /app/Config/preflight.json resolve
# against /app, so its "Config/plans" is /app/Config/plans.
COPY Config /app/Config

USER 10001:10001
# Job directories go to $TMPDIR/preflight-jobs (/tmp/preflight-jobs) unless job_dir says otherwise.
# 8080: the API; 8081: the probes (/healthz, /metrics), a listener of its own that a full
# main port cannot starve (probe_port).
EXPOSE 8080 8081

# bash's /dev/tcp instead of curl: no extra package for a probe. It asks the probe port, which
# answers even when the main port is at its connection limit, and follows PREFLIGHT_PROBE_PORT;
# a port changed only inside a mounted preflight.json needs PREFLIGHT_PROBE_PORT set to match.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PREFLIGHT_PROBE_PORT:-8081} && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]

ENTRYPOINT ["/usr/local/bin/preflight", "serve", "--config", "/app/Config/preflight.json"]
