# Apicurio Registry (Quarkus fast-jar) from the Maven Central archive scripts/stack.sh caches. Laid out like the
# official apicurio/apicurio-registry image (/deployments, uid 1001, HTTP 8080, management 9000); configured the
# same way, through Quarkus's environment mapping (QUARKUS_HTTP_PORT, APICURIO_STORAGE_KIND, ...) and JAVA_OPTS.
ARG BASE
FROM ${BASE}
COPY app /deployments
COPY run.sh /deployments/run.sh
USER 1001:0
WORKDIR /deployments
EXPOSE 8080 9000
STOPSIGNAL SIGTERM
ENTRYPOINT ["/deployments/run.sh"]
