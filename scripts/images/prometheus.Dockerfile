# Prometheus from Debian's package, run like the official prom/prometheus image: the binary as entrypoint, its
# flags as the command, data under /prometheus, as nobody.
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && mkdir -p /prometheus && chown 65534:65534 /prometheus \
 && /usr/bin/prometheus --version
USER 65534:65534
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
