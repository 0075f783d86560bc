#!/bin/bash
# Starts Apicurio Registry in the foreground (exec: the JVM gets docker stop's SIGTERM). JAVA_OPTS replaces the
# defaults, JAVA_OPTS_APPEND adds to them, as in the official image.
set -euo pipefail
read -r -a opts <<<"${JAVA_OPTS:--XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true -Djava.io.tmpdir=/tmp}"
read -r -a extra <<<"${JAVA_OPTS_APPEND:-}"
exec java "${opts[@]}" "${extra[@]}" -jar /deployments/quarkus-run.jar
