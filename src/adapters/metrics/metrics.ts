/**
 * Prometheus metrics (prom-client). One registry per worker, so tests can run several side by side.
 * Names follow Prometheus conventions: `_total` counters, `_seconds` histograms, base units. Every histogram
 * has explicit buckets. docs/operating.md lists the metrics; deploy/ holds the dashboard and alerts
 * built on them (and test/integration/prometheus.test.ts proves each of their queries against the worker).
 *
 * The `tool` label is bounded: tool names come from models. A name is kept only when it is on the
 * configured allow-list, or, without a list, when the registry knows the tool, for the first
 * {@link MAX_TOOL_LABELS} such names; everything else is `other` (`unknown` for tools the registry lacks,
 * `none` for records with no readable tool name).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric, type OpenMetricsContentType } from 'prom-client';
import type { OutputRecord } from '../../core/shared/types.js';

export const MAX_TOOL_LABELS = 100;

export interface RegistryStatsSource {
  stats(): { hits: number; misses: number; stale: number; requests: Record<string, number> };
}

export class WorkerMetrics {
  readonly registry = new Registry();
  readonly calls = this.#counter(
    'toolcall_calls_total',
    ['outcome', 'tool'],
    'Tool calls processed (one per output: a whole message holds several, an unreadable ' +
      'record counts as one), by outcome (normalized, rejected, dead_lettered) and tool.',
  );
  readonly records = this.#counter(
    'toolcall_records_total',
    ['shape'],
    'Input records processed, by shape: call (one call), message (a whole ' +
      'message, fanned out into its calls), unreadable (one dead letter).',
  );
  readonly repairs = this.#counter(
    'toolcall_repairs_total',
    ['kind', 'tool'],
    'Repairs applied by RT-TOOL-8, by kind (json_decoded, entities_decoded) and tool.',
  );
  readonly passThroughs = this.#counter(
    'toolcall_pass_throughs_total',
    ['reason', 'tool'],
    'String arguments the JSON repair could have changed and left alone, by reason and tool: a container parameter not decoded ' +
      '(not_json, shape_mismatch, too_deep), or JSON list or map text the schema does not let us decode (string_declared, not_declared).',
  );
  readonly validationErrors = this.#counter(
    'toolcall_validation_errors_total',
    ['code', 'tool'],
    'Errors reported on rejected calls, by error code and tool.',
  );
  readonly deadLetters = this.#counter(
    'toolcall_dead_letters_total',
    ['reason'],
    'Records sent to the dead-letter topic (a whole record, or one call of a message), by reason (error code).',
  );
  /** Observed once per input record: a {@link RecordHistogram}, not prom-client's, for its cost per observation. */
  readonly processingSeconds = new RecordHistogram(
    'toolcall_processing_seconds',
    'Time to decode, normalize and validate one input record, all its calls (excluding schema fetches and Kafka I/O).',
    // Most records take tens of microseconds; the top buckets catch records near the size and depth limits.
    [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    this.registry,
  );
  readonly batchSeconds = this.#histogram(
    'toolcall_batch_seconds',
    [],
    'Time to process and deliver one fetched batch, including the transaction or offset commit.',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  readonly transactions = this.#counter(
    'toolcall_transactions_total',
    ['result'],
    'Kafka transactions (exactly-once) or offset commits (at-least-once), by result (committed, aborted).',
  );
  readonly inFlight = this.#gauge('toolcall_records_in_flight', [], 'Records fetched and being processed, not yet committed.');
  readonly consumerLag = this.#gauge(
    'toolcall_consumer_lag',
    ['topic', 'partition'],
    'Records behind the partition high watermark, as of the last delivered batch, by topic and partition (partitions this worker owns).',
  );
  readonly assignedPartitions = this.#gauge(
    'toolcall_assigned_partitions',
    [],
    'Input partitions the consumer group assigned to this worker at the last rebalance.',
  );
  readonly schemaWaits = this.#counter(
    'toolcall_schema_waits_total',
    [],
    'Times a partition paused because a schema could not be fetched (the records wait; none is dead-lettered).',
  );
  readonly traceContextInvalid = this.#counter(
    'toolcall_trace_context_invalid_total',
    [],
    'Input records whose traceparent header is not valid W3C Trace Context: their calls start a new trace ' +
      '(counted only while tracing is on).',
  );
  readonly spansDropped = this.#counter(
    'toolcall_spans_dropped_total',
    ['reason'],
    'Spans that never reached the tracing backend, by reason: queue_full (the export queue was full), ' +
      'export_failed (the backend refused or did not answer).',
  );
  readonly registryRequestSeconds = this.#histogram(
    'toolcall_registry_fetch_seconds',
    ['result'],
    'Time to fetch a schema from the registry on a cache miss (including retries), by result (ok, not_found, error).',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );

  readonly #allowList: ReadonlySet<string> | undefined;
  readonly #seenTools = new Set<string>();

  constructor(options: { toolLabels: readonly string[]; registryStats?: RegistryStatsSource }) {
    collectDefaultMetrics({ register: this.registry });
    this.#allowList = options.toolLabels.length > 0 ? new Set(options.toolLabels) : undefined;
    const stats = options.registryStats;
    if (stats !== undefined) {
      // The schema source keeps plain counts (the adapter has no metrics dependency). They are read at scrape
      // time and carried into real counters, so rate() and increase() apply as to any other counter.
      mirrorCounter(this.registry, {
        name: 'toolcall_registry_cache_lookups_total',
        help: 'Schema lookups by result: hit (answered from the cache) or miss (had to ask the registry or join a request in flight).',
        labelName: 'result',
        read: () => {
          const s = stats.stats();
          return { hit: s.hits, miss: s.misses };
        },
      });
      mirrorCounter(this.registry, {
        name: 'toolcall_registry_cache_stale_total',
        help:
          'Expired cache entries served because the registry failed: their refresh failed, ' +
          'or the registry was last found unavailable (stale-while-error).',
        labelName: undefined,
        read: () => ({ '': stats.stats().stale }),
      });
      mirrorCounter(this.registry, {
        name: 'toolcall_registry_requests_total',
        help: 'Schema registry HTTP requests (each retry counts; readiness pings do not), by result (ok, not_found, error).',
        labelName: 'result',
        read: () => ({ ...stats.stats().requests }),
      });
    }
  }

  /** A fresh tally for one batch's outputs, labelled as this registry labels tools. */
  tally(): OutputTally {
    return new OutputTally((tool, known) => this.toolLabel(tool, known));
  }

  /** Adds a delivered batch's tally to the counters: one `inc` per series. */
  count(tally: OutputTally): void {
    tally.addTo(this);
  }

  /** After a rebalance: how many input partitions this worker owns now. */
  assigned(count: number): void {
    this.assignedPartitions.set(count);
  }

  /** Drops the series of a partition this worker no longer owns: its new owner reports that partition now. */
  forgetPartition(topic: string, partition: number): void {
    this.consumerLag.remove({ topic, partition: String(partition) });
  }

  toolLabel(tool: string | null, known: boolean): string {
    if (tool === null) return 'none';
    if (this.#allowList !== undefined) return this.#allowList.has(tool) ? tool : 'other';
    if (!known) return 'unknown';
    if (this.#seenTools.has(tool)) return tool;
    if (this.#seenTools.size >= MAX_TOOL_LABELS) return 'other';
    this.#seenTools.add(tool);
    return tool;
  }

  #counter<L extends string>(name: string, labelNames: readonly L[], help: string): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  #gauge<L extends string>(name: string, labelNames: readonly L[], help: string): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  #histogram<L extends string>(name: string, labelNames: readonly L[], help: string, buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }
}

type Counts = Map<string, number>;

function bump(counts: Counts, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function addCounts(into: Counts, from: Counts): void {
  for (const [key, n] of from) into.set(key, (into.get(key) ?? 0) + n);
}

/**
 * What one batch's outputs count for, by series, added to the counters once the batch is delivered
 * ({@link WorkerMetrics.count}): prom-client hashes and validates the labels on every `inc`, a cost per record (a
 * call, its repairs and pass-throughs) that this pays once per batch. A batch's result carries its own tally, so
 * batches in hand at the same time never mix their counts, and one that is not delivered is simply dropped.
 */
export class OutputTally {
  /** By tool label: outcomes, repair kinds, pass-through reasons, validation error codes. */
  readonly #byTool = new Map<string, { calls: Counts; repairs: Counts; passThroughs: Counts; errors: Counts }>();
  readonly #deadLetters: Counts = new Map();
  /** Input records by shape: one call, a whole message (fanned out), unreadable. */
  readonly #records: Counts = new Map();
  readonly #label: (tool: string | null, known: boolean) => string;

  constructor(label: (tool: string | null, known: boolean) => string) {
    this.#label = label;
  }

  /** One input record, by shape. */
  input(shape: 'call' | 'message' | 'unreadable'): void {
    bump(this.#records, shape);
  }

  /** One output (one call). `known` says whether the registry knows the tool. */
  output(record: OutputRecord, known: boolean): void {
    const tool = this.#label(record.tool, known);
    let counts = this.#byTool.get(tool);
    if (counts === undefined) {
      counts = { calls: new Map(), repairs: new Map(), passThroughs: new Map(), errors: new Map() };
      this.#byTool.set(tool, counts);
    }
    bump(counts.calls, record.disposition === 'dead_letter' ? 'dead_lettered' : record.disposition);
    for (const repair of record.repairs) bump(counts.repairs, repair.kind);
    for (const pass of record.passThroughs) bump(counts.passThroughs, pass.reason);
    if (record.disposition === 'rejected') for (const error of record.errors) bump(counts.errors, error.code);
    if (record.disposition === 'dead_letter') bump(this.#deadLetters, record.errors[0]?.code ?? 'unknown');
  }

  /** Adds another tally's counts to this one (both of the same registry's labels). */
  absorb(other: OutputTally): void {
    for (const [tool, counts] of other.#byTool) {
      const mine = this.#byTool.get(tool);
      if (mine === undefined) {
        this.#byTool.set(tool, {
          calls: new Map(counts.calls),
          repairs: new Map(counts.repairs),
          passThroughs: new Map(counts.passThroughs),
          errors: new Map(counts.errors),
        });
        continue;
      }
      addCounts(mine.calls, counts.calls);
      addCounts(mine.repairs, counts.repairs);
      addCounts(mine.passThroughs, counts.passThroughs);
      addCounts(mine.errors, counts.errors);
    }
    addCounts(this.#deadLetters, other.#deadLetters);
    addCounts(this.#records, other.#records);
  }

  addTo(metrics: WorkerMetrics): void {
    for (const [tool, counts] of this.#byTool) {
      for (const [outcome, n] of counts.calls) metrics.calls.inc({ outcome, tool }, n);
      for (const [kind, n] of counts.repairs) metrics.repairs.inc({ kind, tool }, n);
      for (const [reason, n] of counts.passThroughs) metrics.passThroughs.inc({ reason, tool }, n);
      for (const [code, n] of counts.errors) metrics.validationErrors.inc({ code, tool }, n);
    }
    for (const [reason, n] of this.#deadLetters) metrics.deadLetters.inc({ reason }, n);
    for (const [shape, n] of this.#records) metrics.records.inc({ shape }, n);
  }
}

/** The span an observation was made in: its trace id becomes the bucket's exemplar (OpenMetrics only). */
export interface ExemplarSpan {
  readonly traceId: string;
  readonly spanId: string;
}

/**
 * A histogram without labels whose observation is a bucket search and three additions. prom-client's validates
 * and hashes the labels and allocates on every observation: on the worker's hot path, once per record, that is a
 * visible share of the record's cost. The registry exports it in prom-client's own histogram format (its `get`).
 * An observation made in a sampled span keeps it as its bucket's exemplar (the last one per bucket wins), which
 * only the OpenMetrics exposition shows; without a span an observation costs nothing more.
 */
export class RecordHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: readonly number[];
  /** Observations per bucket: `#counts[i]` those at most `#bounds[i]` and over the bound before it. */
  readonly #counts: number[];
  /** Each bucket's last exemplar (the last index is +Inf), in parallel arrays: no object per observation. */
  readonly #exemplarTrace: (string | undefined)[];
  readonly #exemplarSpan: string[];
  readonly #exemplarValue: number[];
  readonly #exemplarTime: number[];
  #sum = 0;
  #count = 0;
  /** False after a reset until the next observation: prom-client's exports no series then. */
  #present = true;

  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    registry: Registry,
  ) {
    if (buckets.some((b, i) => i > 0 && b <= (buckets[i - 1] as number))) throw new RangeError(`${name}: buckets must ascend`);
    this.#bounds = [...buckets];
    this.#counts = this.#bounds.map(() => 0);
    const slots = this.#bounds.length + 1;
    this.#exemplarTrace = new Array<string | undefined>(slots).fill(undefined);
    this.#exemplarSpan = new Array<string>(slots).fill('');
    this.#exemplarValue = new Array<number>(slots).fill(0);
    this.#exemplarTime = new Array<number>(slots).fill(0);
    registry.registerMetric(this as unknown as Metric);
  }

  observe(value: number, span?: ExemplarSpan): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
    const bounds = this.#bounds;
    let i = 0;
    for (; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        this.#counts[i] = (this.#counts[i] as number) + 1;
        break;
      }
    }
    this.#sum += value;
    this.#count++;
    this.#present = true;
    if (span !== undefined) {
      this.#exemplarTrace[i] = span.traceId;
      this.#exemplarSpan[i] = span.spanId;
      this.#exemplarValue[i] = value;
      this.#exemplarTime[i] = Date.now();
    }
  }

  /** The values as prom-client's histogram gives them: cumulative buckets, +Inf, sum and count. */
  get(): { name: string; help: string; type: string; aggregator: string; values: object[] } {
    if (!this.#present) return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [] };
    let cumulative = 0;
    const name = `${this.name}_bucket`;
    const values: object[] = this.#bounds.map((le, i) => {
      cumulative += this.#counts[i] as number;
      return { labels: { le }, value: cumulative, metricName: name, exemplar: this.#exemplar(i) };
    });
    values.push(
      { labels: { le: '+Inf' }, value: this.#count, metricName: name, exemplar: this.#exemplar(this.#bounds.length) },
      { labels: {}, value: this.#sum, metricName: `${this.name}_sum` },
      { labels: {}, value: this.#count, metricName: `${this.name}_count` },
    );
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** prom-client's exemplar shape; OpenMetrics timestamps are seconds. */
  #exemplar(i: number): { labelSet: Record<string, string>; value: number; timestamp: number } | null {
    const traceId = this.#exemplarTrace[i];
    if (traceId === undefined) return null;
    return {
      labelSet: { trace_id: traceId, span_id: this.#exemplarSpan[i] as string },
      value: this.#exemplarValue[i] as number,
      timestamp: (this.#exemplarTime[i] as number) / 1e3,
    };
  }

  reset(): void {
    this.#counts.fill(0);
    this.#exemplarTrace.fill(undefined);
    this.#sum = 0;
    this.#count = 0;
    this.#present = false;
  }
}

/** What a scrape gets: OpenMetrics (with exemplars) when its `Accept` prefers it, else the Prometheus text format. */
export async function exposition(registry: Registry, accept: string | undefined): Promise<{ contentType: string; text: string }> {
  if (!prefersOpenMetrics(accept)) return { contentType: registry.contentType, text: await registry.metrics() };
  // A registry of its own per scrape: prom-client renames the counters it renders as OpenMetrics (drops `_total`),
  // so each metric goes in behind a view carrying that name, and the worker's registry is left as it is.
  const open = new Registry<OpenMetricsContentType>();
  open.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  for (const metric of registry.getMetricsAsArray()) open.registerMetric(openMetricsView(metric as unknown as Rendered));
  return { contentType: open.contentType, text: await open.metrics() };
}

/** What the registry reads of a metric to render it. */
interface Rendered {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  get(): Promise<object> | object;
}

function openMetricsView(metric: Rendered): Metric {
  if (metric.type !== 'counter') return metric as unknown as Metric;
  const name = metric.name.replace(/_total$/, '');
  const view: Rendered = {
    name,
    help: metric.help,
    type: metric.type,
    get: async () => ({ ...(await metric.get()), name }),
  };
  return view as unknown as Metric;
}

/** True when `Accept` names `application/openmetrics-text` with a quality at least that of any other type it names. */
export function prefersOpenMetrics(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let open = 0;
  let other = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(quality)) continue;
    if (type === 'application/openmetrics-text') open = Math.max(open, quality);
    else if (type !== '') other = Math.max(other, quality);
  }
  return open > 0 && open >= other;
}

/**
 * A counter whose value is a plain count kept elsewhere, read at scrape time: each collection adds what the
 * source counted since the previous one, so the exported series only ever grow, as a counter must.
 * `read` returns totals by label value (`labelName` undefined: one unlabelled total under any key).
 */
function mirrorCounter(
  registry: Registry,
  spec: { name: string; help: string; labelName: string | undefined; read: () => Record<string, number> },
): void {
  const seen = new Map<string, number>();
  const { labelName } = spec;
  new Counter({
    name: spec.name,
    help: spec.help,
    labelNames: labelName === undefined ? [] : [labelName],
    registers: [registry],
    collect() {
      for (const [value, total] of Object.entries(spec.read())) {
        const delta = Math.max(0, total - (seen.get(value) ?? 0));
        seen.set(value, total);
        if (labelName === undefined) this.inc(delta);
        else this.inc({ [labelName]: value }, delta);
      }
    },
  });
}
