# Apache Kafka (KRaft, combined broker+controller) from the Maven Central jars scripts/stack.sh caches. Configured
# like the official apache/kafka image: KAFKA_FOO_BAR=v becomes foo.bar=v over single-node defaults (see run.sh);
# /opt/kafka/bin has the tools compose and the tests call (kafka-topics.sh, kafka-console-producer.sh, ...).
ARG BASE
FROM ${BASE}
COPY libs /opt/kafka/libs
COPY bin /opt/kafka/bin
COPY config /opt/kafka/config
RUN groupadd --gid 1000 appuser && useradd --uid 1000 --gid appuser --no-create-home --home-dir /var/lib/kafka appuser \
 && mkdir -p /var/lib/kafka/data /var/lib/kafka/config && chown -R 1000:1000 /var/lib/kafka
USER 1000:1000
WORKDIR /var/lib/kafka
EXPOSE 9092 9093
STOPSIGNAL SIGTERM
ENTRYPOINT ["/opt/kafka/bin/run.sh"]
