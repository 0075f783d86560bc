#!/usr/bin/env bash
# Checks everything under helm/ and deploy/ without a cluster or a Docker engine:
#   1. helm lint --strict, for the default values and each helm/toolcall-normalizer/ci/*-values.yaml;
#   2. helm template for the same, validated by kubeconform -strict against the Kubernetes JSON schemas
#      (installed by scripts/ci-prereqs.sh, offline) and the CRD schemas shipped in deploy/kubeconform/;
#      no kind is skipped and no missing schema is ignored;
#   3. chart invariants on the rendered output: every worker setting of src/config/settings.ts is set, within
#      its bounds,
#      terminationGracePeriodSeconds is above SHUTDOWN_TIMEOUT_MS, autoscalers are capped at the partition
#      count, KEDA's OAUTHBEARER credentials come from the ConfigMap and Secret, and rendering fails when KEDA and
#      the HPA are both enabled;
#   4. promtool check rules and promtool test rules on deploy/prometheus/;
#   5. the Grafana dashboard is JSON with a description on every panel, its rejected-calls panel links to the
#      traces of rejected calls in Jaeger (provisioned for compose); deploy/compose.yaml sets only
#      variables the worker reads.
# Prints a summary; exits 1 when any check failed, 2 when a tool is missing (run scripts/ci-prereqs.sh).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CHART="$ROOT/helm/toolcall-normalizer"
K8S_VERSION=${K8S_VERSION:-1.34.0}
DEPLOY_CACHE=${TOOLCALL_DEPLOY_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-deploy}
K8S_SCHEMA_DIR=${K8S_SCHEMA_DIR:-$DEPLOY_CACHE/kubernetes-json-schema/v$K8S_VERSION-strict}
# scripts/ci-prereqs.sh installs helm and kubeconform with go install: into GOBIN, or GOPATH/bin.
if command -v go >/dev/null; then
  gobin=$(go env GOBIN); PATH="$PATH:${gobin:-$(go env GOPATH)/bin}"
fi

missing=()
for tool in helm kubeconform promtool python3; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[[ -f $K8S_SCHEMA_DIR/.complete ]] || missing+=("Kubernetes JSON schemas in $K8S_SCHEMA_DIR")
if [[ ${#missing[@]} -gt 0 ]]; then
  printf 'check-deploy: missing: %s\ncheck-deploy: run `bash scripts/ci-prereqs.sh` (installs Prometheus/promtool, helm, kubeconform and the schemas)\n' "$(IFS=', '; echo "${missing[*]}")" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The worker's settings (names, kinds, bounds), from the one table the loader reads.
if ! (cd "$ROOT" && npx --no-install tsx scripts/settings.ts --json) >"$work/settings.json" 2>"$work/settings.err"; then
  printf 'check-deploy: cannot read the settings table (npm ci first?):\n' >&2; cat "$work/settings.err" >&2; exit 2
fi
passed=0
failures=()
# check NAME COMMAND...: runs the command, output to a log shown on failure.
check() {
  local name=$1; shift
  local log="$work/log"
  if "$@" >"$log" 2>&1; then
    passed=$((passed + 1)); printf 'ok    %s\n' "$name"
  else
    failures+=("$name"); printf 'FAIL  %s\n' "$name"; sed 's/^/      /' "$log" | tail -n 40
  fi
}

kubeconform_strict() {
  kubeconform -strict -summary -kubernetes-version "$K8S_VERSION" \
    -schema-location "$K8S_SCHEMA_DIR/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    -schema-location "$ROOT/deploy/kubeconform/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" "$1"
}

render() { # values-file-or-empty output
  helm template tcn "$CHART" --namespace agents --kube-version "$K8S_VERSION" ${1:+-f "$1"} > "$2"
}

# Rendered-output invariants (python3: YAML through PyYAML, which the machine image ships).
invariants() { # rendered.yaml
  python3 - "$1" "$work/settings.json" <<'PY'
import json, sys, yaml
rendered, settings_json = sys.argv[1:3]
docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
kinds = {d["kind"]: d for d in docs}
problems = []
settings = {s["name"]: s for s in json.load(open(settings_json))}
wanted = sorted(settings)
if len(wanted) < 30:
    problems.append(f"found only {len(wanted)} settings in src/config/settings.ts")
cm = kinds["ConfigMap"]["data"]
for name, value in cm.items():
    spec = settings.get(name)
    if spec is None or str(value).strip() == "":  # empty means unset, as the loader reads it
        continue
    if spec["kind"] == "int" and not (str(value).isdigit() and spec["min"] <= int(value) <= spec["max"]):
        problems.append(f"ConfigMap {name}={value!r} is outside {spec['min']}..{spec['max']}")
    if spec["kind"] == "enum" and str(value).lower() not in spec["values"]:
        problems.append(f"ConfigMap {name}={value!r} is not one of {', '.join(spec['values'])}")
    if spec["kind"] == "bool" and str(value).lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
        problems.append(f"ConfigMap {name}={value!r} is not true or false")
workloads = [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]
if len(workloads) != 1:
    print(f"expected one Deployment or StatefulSet, found {[d['kind'] for d in workloads]}"); sys.exit(1)
workload = workloads[0]
pod = workload["spec"]["template"]["spec"]
container = pod["containers"][0]
env = {e["name"] for e in container.get("env", [])}
secret_vars = {"KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD", "SCHEMA_REGISTRY_USERNAME", "SCHEMA_REGISTRY_PASSWORD"}
for name in wanted:
    if name not in cm and name not in env and name not in secret_vars:
        problems.append(f"{name} (a setting of src/config/settings.ts) is set by neither the ConfigMap nor the {workload['kind']}")
for name in cm:
    if name not in wanted:
        problems.append(f"ConfigMap sets {name}, which the worker does not read")
for name in secret_vars & set(cm):
    problems.append(f"secret {name} is in the ConfigMap")
for e in container.get("env", []):
    if e["name"] in secret_vars and "valueFrom" not in e:
        problems.append(f"{e['name']} must come from a Secret (valueFrom.secretKeyRef)")
shutdown_s = int(cm["SHUTDOWN_TIMEOUT_MS"]) / 1000
grace = pod["terminationGracePeriodSeconds"]
if not grace > shutdown_s:
    problems.append(f"terminationGracePeriodSeconds {grace} is not above SHUTDOWN_TIMEOUT_MS ({shutdown_s} s)")
sc = container["securityContext"]
for key, value in {"readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False, "runAsNonRoot": True}.items():
    if sc.get(key) is not value:
        problems.append(f"container securityContext.{key} must be {value}")
if sc.get("capabilities", {}).get("drop") != ["ALL"]:
    problems.append("container securityContext.capabilities.drop must be [ALL]")
if pod["securityContext"].get("seccompProfile", {}).get("type") != "RuntimeDefault":
    problems.append("pod seccompProfile must be RuntimeDefault")
probes = {p: container.get(p, {}).get("httpGet", {}).get("path") for p in ("livenessProbe", "readinessProbe")}
if probes != {"livenessProbe": "/livez", "readinessProbe": "/readyz"}:
    problems.append(f"probes must be /livez and /readyz, got {probes}")
if str(container["ports"][0]["containerPort"]) != cm["METRICS_PORT"]:
    problems.append("the container port differs from METRICS_PORT")
# The controller follows the client: a StatefulSet with stable names for platformatic, a Deployment for kafkajs.
from_pod_name = {e["name"] for e in container.get("env", []) if e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.name"}
if "WORKER_ID" not in from_pod_name:
    problems.append("WORKER_ID must come from the pod name")
want_kind = "StatefulSet" if cm["KAFKA_CLIENT"] == "platformatic" else "Deployment"
if workload["kind"] != want_kind:
    problems.append(f"KAFKA_CLIENT={cm['KAFKA_CLIENT']} needs a {want_kind}, the chart rendered a {workload['kind']}")
if workload["kind"] == "StatefulSet":
    headless = [d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == workload["spec"].get("serviceName")]
    if not headless or headless[0]["spec"].get("clusterIP") != "None":
        problems.append(f"the StatefulSet's serviceName {workload['spec'].get('serviceName')!r} is not a headless Service of the chart")
    elif headless[0]["spec"].get("ports"):
        problems.append("the headless Service has ports: a ServiceMonitor would scrape every pod twice")
    if workload["spec"].get("podManagementPolicy") != "Parallel":
        problems.append("the StatefulSet must start and stop pods in parallel (podManagementPolicy: Parallel)")
    if "KAFKA_GROUP_INSTANCE_ID" not in from_pod_name and cm.get("KAFKA_GROUP_INSTANCE_ID", "") == "":
        print("note: static membership is off (config.staticMembership=false)")
elif "KAFKA_GROUP_INSTANCE_ID" in env or cm.get("KAFKA_GROUP_INSTANCE_ID", "") != "":
    problems.append("KAFKA_GROUP_INSTANCE_ID is set on a Deployment, whose pod names change on every restart")
partitions = None
for d in docs:
    if d["kind"] in ("ScaledObject", "HorizontalPodAutoscaler"):
        target = d["spec"]["scaleTargetRef"]
        if (target["kind"], target["name"]) != (workload["kind"], workload["metadata"]["name"]):
            problems.append(f"the {d['kind']} scales {target['kind']}/{target['name']}, not the {workload['kind']} of the chart")
    if d["kind"] == "ScaledObject":
        trigger = d["spec"]["triggers"][0]["metadata"]
        if trigger["consumerGroup"] != cm["GROUP_ID"] or trigger["topic"] != cm["INPUT_TOPIC"]:
            problems.append("the KEDA trigger must watch GROUP_ID on INPUT_TOPIC")
        partitions = d["spec"]["maxReplicaCount"]
    if d["kind"] == "HorizontalPodAutoscaler":
        partitions = d["spec"]["maxReplicas"]
if partitions is not None and "replicas" in workload["spec"]:
    problems.append(f"with an autoscaler the {workload['kind']} must not set replicas")
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{workload['kind']}, {len(wanted)} variables covered, terminationGracePeriodSeconds {grace} > {shutdown_s} s")
PY
}

expect_render_failure() { # message-substring values...
  local want=$1; shift
  local out
  if out=$(helm template tcn "$CHART" --kube-version "$K8S_VERSION" "$@" 2>&1); then
    echo "rendering succeeded but should have failed with: $want"; return 1
  fi
  grep -qF -- "$want" <<<"$out" || { echo "rendering failed, but not with \"$want\":"; echo "$out"; return 1; }
}

field_check() { # rendered.yaml kind dotted.path expected
  local got
  got=$(python3 -c '
import sys, yaml
doc = next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == sys.argv[2])
for key in sys.argv[3].split("."):
    doc = doc[key]
print(doc)' "$1" "$2" "$3") || return 1
  [[ $got == "$4" ]] || { echo "$2 $3 is $got, expected $4"; return 1; }
}

# go-installed binaries carry their module version (helm's and kubeconform's own version flags show a build default).
module_version() { go version -m "$(command -v "$1")" 2>/dev/null | awk -v m="$2" '$1 == "mod" && $2 == m { print $3 }'; }
echo "== helm chart ($CHART, Kubernetes $K8S_VERSION; helm $(module_version helm helm.sh/helm/v3), kubeconform $(module_version kubeconform github.com/yannh/kubeconform))"
values_files=("" "$CHART"/ci/*-values.yaml)
for values in "${values_files[@]}"; do
  label=${values:+ci/$(basename "$values")}; label=${label:-default values}
  out="$work/rendered-$(basename "${values:-default.yaml}")"
  check "helm lint --strict ($label)" helm lint --strict --kube-version "$K8S_VERSION" "$CHART" ${values:+-f "$values"}
  if check "helm template ($label)" render "$values" "$out"; then
    check "kubeconform -strict ($label)" kubeconform_strict "$out"
    check "chart invariants ($label)" invariants "$out"
  fi
done
check "KEDA maxReplicaCount capped at the partition count (20 -> 8)" field_check "$work/rendered-keda-values.yaml" ScaledObject spec.maxReplicaCount 8
check "HPA maxReplicas capped at the partition count (10 -> 4)" field_check "$work/rendered-hpa-values.yaml" HorizontalPodAutoscaler spec.maxReplicas 4
check "terminationGracePeriodSeconds = ceil(SHUTDOWN_TIMEOUT_MS 45500 / 1000) + 10" \
  field_check "$work/rendered-sasl-tls-values.yaml" Deployment spec.template.spec.terminationGracePeriodSeconds 56
check "platformatic: a StatefulSet, KAFKA_GROUP_INSTANCE_ID from the pod name, KEDA scaling it" python3 - "$work/rendered-platformatic-values.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
sts = next(d for d in docs if d["kind"] == "StatefulSet")
env = {e["name"]: e for e in sts["spec"]["template"]["spec"]["containers"][0]["env"]}
ref = lambda name: env.get(name, {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
problems = [f"{n} is not the pod name" for n in ("WORKER_ID", "KAFKA_GROUP_INSTANCE_ID") if ref(n) != "metadata.name"]
target = next(d for d in docs if d["kind"] == "ScaledObject")["spec"]["scaleTargetRef"]
if target["kind"] != "StatefulSet":
    problems.append(f"KEDA scales a {target['kind']}")
if "KAFKA_GROUP_INSTANCE_ID" in next(d for d in docs if d["kind"] == "ConfigMap")["data"]:
    problems.append("the ConfigMap sets KAFKA_GROUP_INSTANCE_ID too")
if problems:
    print("\n".join(problems)); sys.exit(1)
PY
check "KEDA with OAUTHBEARER: the scaler's token URL, scope and client id from the ConfigMap, its secret from the Secret" python3 - "$work/rendered-keda-oauth-values.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kind = lambda k: next(d for d in docs if d["kind"] == k)
cm, auth, scaled = kind("ConfigMap"), kind("TriggerAuthentication")["spec"], kind("ScaledObject")
refs = {r["parameter"]: (r["name"], r["key"]) for r in auth.get("configMapTargetRef", [])}
secrets = {r["parameter"]: (r["name"], r["key"]) for r in auth.get("secretTargetRef", [])}
name = cm["metadata"]["name"]
want = {"oauthTokenEndpointUri": (name, "KAFKA_OAUTH_TOKEN_URL"), "scopes": (name, "KAFKA_OAUTH_SCOPE"), "username": (name, "KAFKA_OAUTH_CLIENT_ID")}
problems = [f"configMapTargetRef {p} is {refs.get(p)}, expected {w}" for p, w in want.items() if refs.get(p) != w]
problems += [f"ConfigMap {key} is empty" for _, key in want.values() if not cm["data"].get(key)]
if secrets != {"password": ("kafka-oauth-client", "client-secret")}:
    problems.append(f"secretTargetRef is {secrets}, expected the client secret only")
trigger = scaled["spec"]["triggers"][0]
if trigger["metadata"].get("sasl") != "oauthbearer" or trigger["metadata"].get("tls") != "enable":
    problems.append(f"trigger sasl/tls are {trigger['metadata'].get('sasl')}/{trigger['metadata'].get('tls')}")
if trigger.get("authenticationRef", {}).get("name") != kind("TriggerAuthentication")["metadata"]["name"]:
    problems.append("the trigger does not use the TriggerAuthentication")
if problems:
    print("\n".join(problems)); sys.exit(1)
PY
check "rendering fails with KEDA and an OAuth audience (KEDA's scaler sends none)" expect_render_failure "KEDA's kafka scaler asks its tokens without an audience" \
  -f "$CHART/ci/oauth-values.yaml" --set keda.enabled=true
check "kafkajs (default values): a Deployment, no static membership" field_check "$work/rendered-default.yaml" ConfigMap data.KAFKA_GROUP_INSTANCE_ID ""
check "rendering fails with KEDA and HPA both enabled" expect_render_failure "mutually exclusive" --set keda.enabled=true --set autoscaling.enabled=true
check "rendering fails with SASL but no Secret" expect_render_failure "kafka.sasl.existingSecret" --set kafka.sasl.mechanism=plain
check "values.schema.json rejects an unknown delivery mode" expect_render_failure "delivery" --set config.delivery=twice

echo "== Prometheus rules (promtool $(promtool --version 2>&1 | awk 'NR==1 {print $3}'))"
check "promtool check rules deploy/prometheus/alerts.yaml" promtool check rules "$ROOT/deploy/prometheus/alerts.yaml"
check "promtool test rules deploy/prometheus/alerts.test.yaml" promtool test rules "$ROOT/deploy/prometheus/alerts.test.yaml"
check "promtool check config deploy/compose/prometheus.yml" promtool check config --syntax-only "$ROOT/deploy/compose/prometheus.yml"

echo "== Grafana dashboard and compose file"
check "dashboard: JSON, a datasource variable, a description on every panel, queries on every non-row panel" python3 - "$ROOT/deploy/grafana/toolcall-normalizer.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
problems = []
variables = {v["name"]: v for v in d["templating"]["list"]}
if variables.get("datasource", {}).get("type") != "datasource":
    problems.append("no datasource template variable")
panels = d["panels"] + [p for row in d["panels"] for p in row.get("panels", [])]
for p in panels:
    if not p.get("description", "").strip():
        problems.append(f"panel {p.get('title')!r} has no description")
    if p["type"] != "row":
        if not p.get("targets") or not all(t.get("expr") for t in p["targets"]):
            problems.append(f"panel {p.get('title')!r} has no query")
        if p.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"panel {p.get('title')!r} does not use the datasource variable")
ids = [p["id"] for p in panels]
if len(ids) != len(set(ids)):
    problems.append("panel ids repeat")
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{len(panels)} panels")
PY
check "dashboard: the rejected-calls panel links to Jaeger's traces of rejected calls (service, error tag); exemplars go to Jaeger" python3 - "$ROOT/deploy/grafana/toolcall-normalizer.json" "$ROOT/deploy/compose/grafana/provisioning/datasources/prometheus.yaml" <<'PY'
import json, re, sys, yaml
from urllib.parse import parse_qs, urlsplit
d = json.load(open(sys.argv[1]))
sources = yaml.safe_load(open(sys.argv[2]))["datasources"]
problems = []
variables = {v["name"]: v for v in d["templating"]["list"]}
if variables.get("traces", {}).get("type") != "datasource" or variables["traces"].get("query") != "jaeger":
    problems.append("no traces variable picking a Jaeger datasource")
if "service" not in variables:
    problems.append("no service variable")
panels = d["panels"] + [p for row in d["panels"] for p in row.get("panels", [])]
rejected = next((p for p in panels if p.get("title") == "Rejected share"), None)
links = (rejected or {}).get("fieldConfig", {}).get("defaults", {}).get("links", [])
if not links:
    problems.append("the Rejected share panel has no data link")
for link in links:
    url = urlsplit(link.get("url", ""))
    if url.path != "/explore":
        problems.append(f"link {link.get('title')!r} does not open Explore: {url.path}")
        continue
    left = parse_qs(url.query).get("left", [""])[0]
    try:
        pane = json.loads(left)
    except ValueError as e:
        problems.append(f"link {link.get('title')!r}: left is not JSON ({e})"); continue
    used = set(re.findall(r"\$\{(\w+)\}", left))
    for name in used - set(variables) - {"__from", "__to"}:
        problems.append(f"link uses ${{{name}}}, which is no dashboard variable")
    query = (pane.get("queries") or [{}])[0]
    tags = dict(t.split("=", 1) for t in query.get("tags", "").split() if "=" in t)
    if pane.get("datasource") != "${traces}" or query.get("datasource", {}).get("type") != "jaeger":
        problems.append("link does not query the Jaeger datasource variable")
    if query.get("queryType") != "search" or query.get("service") != "${service}":
        problems.append("link is not a Jaeger search by the service variable")
    if tags.get("error") != "true" or tags.get("toolcall.outcome") != "rejected":
        problems.append(f"link does not search error=true toolcall.outcome=rejected: {query.get('tags')!r}")
    if pane.get("range") != {"from": "${__from}", "to": "${__to}"}:
        problems.append("link does not keep the dashboard's time range")
jaeger = [s for s in sources if s.get("type") == "jaeger"]
prom = next((s for s in sources if s.get("type") == "prometheus"), {})
dest = prom.get("jsonData", {}).get("exemplarTraceIdDestinations", [])
if not jaeger:
    problems.append("the provisioning has no Jaeger datasource")
elif not any(x.get("name") == "trace_id" and x.get("datasourceUid") == jaeger[0].get("uid") for x in dest):
    problems.append("Prometheus exemplars (trace_id) do not link to the Jaeger datasource")
latency = next((p for p in panels if p.get("title") == "Processing time p50 / p99"), {})
if not latency.get("targets") or not all(t.get("exemplar") for t in latency["targets"]):
    problems.append("the processing-time panel does not show exemplars")
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{len(links)} link(s)")
PY
check "compose: worker variables are the chart's (all settings of src/config/settings.ts)" python3 - "$ROOT/deploy/compose.yaml" "$work/settings.json" "$work/rendered-default.yaml" <<'PY'
import json, sys, yaml
compose, settings_json, rendered = sys.argv[1:4]
worker_env = set(yaml.safe_load(open(compose))["services"]["worker"]["environment"])
known = {s["name"] for s in json.load(open(settings_json))}
chart = set(next(d for d in yaml.safe_load_all(open(rendered)) if d and d["kind"] == "ConfigMap")["data"])
problems = [f"compose sets {n}, which the worker does not read" for n in sorted(worker_env - known)]
problems += [f"compose lacks {n}, which the chart's ConfigMap sets" for n in sorted(chart - worker_env)]
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{len(worker_env)} variables")
PY

echo
if [[ ${#failures[@]} -gt 0 ]]; then
  printf 'check-deploy: %d passed, %d failed\n' "$passed" "${#failures[@]}"
  printf '  failed: %s\n' "${failures[@]}"
  exit 1
fi
printf 'check-deploy: %d passed, 0 failed\n' "$passed"
