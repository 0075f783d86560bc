#!/bin/bash
# One wrapper for every Kafka CLI tool: the name it is called by (kafka-topics.sh, ...) picks the main class.
set -euo pipefail
case $(basename "$0") in
  kafka-topics.sh) main=org.apache.kafka.tools.TopicCommand ;;
  kafka-console-producer.sh) main=org.apache.kafka.tools.ConsoleProducer ;;
  kafka-console-consumer.sh) main=org.apache.kafka.tools.consumer.ConsoleConsumer ;;
  kafka-consumer-groups.sh) main=org.apache.kafka.tools.consumer.group.ConsumerGroupCommand ;;
  kafka-broker-api-versions.sh) main=org.apache.kafka.tools.BrokerApiVersionsCommand ;;
  kafka-storage.sh) main=kafka.tools.StorageTool ;;
  kafka-run-class.sh) main=$1; shift ;;
  *) echo "tool.sh: unknown tool $(basename "$0")" >&2; exit 2 ;;
esac
read -r -a opts <<<"${KAFKA_TOOL_OPTS:--Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
exec java "${opts[@]}" -Dlog4j2.configurationFile=/opt/kafka/config/tools-log4j2.xml -cp '/opt/kafka/libs/*' "$main" "$@"
