# Java runtime base for the Kafka and Apicurio Registry images: Debian's OpenJDK 21 (trixie has no 17; Kafka 4.x
# runs on 17+, Apicurio Registry 3.3.x needs 21+, so one JRE layer serves both).
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-21-jre-headless \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && java -version
