#!/bin/bash
# Entrypoint of the Kafka image: writes server.properties from single-node defaults (those of the official
# apache/kafka image) overridden by KAFKA_* variables, formats the log dir once, then runs the broker in the
# foreground (exec: it gets docker stop's SIGTERM). Naming as in the official image: strip KAFKA_, lower-case,
# "___" -> "-", "__" -> "_", "_" -> "." (KAFKA_NODE_ID -> node.id).
set -euo pipefail
conf_dir=${KAFKA_CONFIG_DIR:-/var/lib/kafka/config}
mkdir -p "$conf_dir"
declare -A props=(
  [process.roles]=broker,controller [node.id]=1
  [listeners]=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093
  [advertised.listeners]=PLAINTEXT://localhost:9092
  [controller.listener.names]=CONTROLLER
  [listener.security.protocol.map]=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
  [controller.quorum.voters]=1@localhost:9093
  [log.dirs]=/var/lib/kafka/data
  [num.partitions]=1
  [offsets.topic.replication.factor]=1
  [transaction.state.log.replication.factor]=1
  [transaction.state.log.min.isr]=1
  [share.coordinator.state.topic.replication.factor]=1
  [share.coordinator.state.topic.min.isr]=1
  [group.initial.rebalance.delay.ms]=0
)
# Variables of the launcher, not broker properties.
skip=" KAFKA_HEAP_OPTS KAFKA_JVM_PERFORMANCE_OPTS KAFKA_OPTS KAFKA_LOG4J_OPTS KAFKA_GC_LOG_OPTS KAFKA_JMX_OPTS KAFKA_TOOL_OPTS KAFKA_CONFIG_DIR KAFKA_DEBUG KAFKA_VERSION "
while IFS='=' read -r name value; do
  [[ $name == KAFKA_* && $skip != *" $name "* ]] || continue
  key=${name#KAFKA_}
  key=${key,,}
  key=${key//___/-}
  key=${key//__/@}
  key=${key//_/.}
  key=${key//@/_}
  props[$key]=$value
done < <(env)
{
  for key in "${!props[@]}"; do printf '%s=%s\n' "$key" "${props[$key]}"; done
} | sort >"$conf_dir/server.properties"
java_tool=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dlog4j2.configurationFile=/opt/kafka/config/tools-log4j2.xml -cp '/opt/kafka/libs/*')
first_dir=${props[log.dirs]%%,*}
if [[ ! -f $first_dir/meta.properties ]]; then
  format=(format --ignore-formatted -t "${CLUSTER_ID:-5L6g3nShT-eMCtK--X86sw}" -c "$conf_dir/server.properties")
  # Without a static voter list the quorum is dynamic and this node bootstraps it alone.
  [[ -n ${props[controller.quorum.voters]:-} ]] || format+=(--standalone)
  java "${java_tool[@]}" kafka.tools.StorageTool "${format[@]}"
fi
read -r -a heap <<<"${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
read -r -a perf <<<"${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true}"
read -r -a extra <<<"${KAFKA_OPTS:-}"
exec java "${heap[@]}" "${perf[@]}" "${extra[@]}" -XX:+ExitOnOutOfMemoryError \
  -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.xml -Dkafka.logs.dir=/var/lib/kafka \
  -cp '/opt/kafka/libs/*' kafka.Kafka "$conf_dir/server.properties"
