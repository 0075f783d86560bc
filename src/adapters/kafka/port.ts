/**
 * The worker's view of Kafka, whichever client carries it (docs/worker.md "Delivery guarantees"). The worker hands in
 * what to do with one partition's batch of input records; an implementation owns the rest: group membership,
 * claiming partitions, holding a partition while a schema is missing, delivery (one transaction with the
 * consumed offsets, or idempotent produce then commit), and telling a retriable failure from a fatal one.
 */
import type { InputMessage, OutputMessage } from '../../core/records/output.js';
import type { Compression, Delivery, GroupProtocol, GroupRemoteAssignor, KafkaClientName, StreamTopics } from '../../core/shared/stream.js';
import type { OutputTally } from '../metrics/metrics.js';

export { KAFKA_CLIENTS, type KafkaClientName } from '../../core/shared/stream.js';

/** One input record, as both clients read it: bytes, headers by name, the offset as decimal text; the core reads it as is. */
export type InputRecord = InputMessage;

/** Records of one input partition, in offset order, none below what the group has committed. */
export interface PartitionBatch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly InputRecord[];
  /** Records behind the high watermark after this batch, when the client knows it. */
  readonly lag: number | undefined;
}

/** What the worker made of a batch: the outputs of the records it finished, in order, and where it stopped. */
export interface BatchResult {
  /** Every output of every finished record; one input record may have several. */
  readonly outputs: readonly OutputMessage[];
  /** Offset of the last finished record; undefined when none was finished. */
  readonly lastOffset: string | undefined;
  /** The record after `lastOffset` waits for its schema: hold the partition, then read it again from there. */
  readonly holdMs: number | undefined;
  /** What `outputs` count for in the metrics: the handler adds it once the adapter reports them delivered. */
  readonly tally: OutputTally;
}

export interface BatchControl {
  /** False once the worker is stopping or the batch belongs to a generation the group has moved past. */
  isLive(): boolean;
  /** Keeps the group membership alive during a long batch (schema lookups); a no-op where the client heartbeats itself. */
  heartbeat(): Promise<void>;
}

/** What the worker does with the stream; every call comes from the implementation. */
export interface StreamHandler {
  /** Turns one partition's records into outputs (decode, schema, RT-TOOL-8, validation). */
  process(batch: PartitionBatch, control: BatchControl): Promise<BatchResult>;
  /**
   * A delivery ended: `delivered` holds the results whose outputs were delivered and offsets committed (empty
   * when it failed: those batches are fetched and processed again).
   */
  settled(delivered: readonly BatchResult[]): void;
  /** Partitions this worker owns now. */
  assigned(partitions: readonly TopicPartition[]): void;
  /** The consumer cannot go on: the worker stops with exit 1. */
  fatal(error: Error, crashMessage: string): void;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** Counters and timings the implementation reports; the worker maps them onto its metrics. */
export interface DeliveryObserver {
  transaction(result: 'committed' | 'aborted'): void;
  lag(topic: string, partition: number, lag: number): void;
  forgetPartition(topic: string, partition: number): void;
  inFlight(delta: number): void;
  /** Starts the timer of one delivery (process and deliver, commit included); call the result when it ends. */
  batchTimer(): () => void;
}

export interface KafkaStream {
  readonly client: KafkaClientName;
  /** Connects, checks (or creates) the topics, joins the group and starts handing batches to the handler. */
  start(handler: StreamHandler): Promise<void>;
  /** Stops fetching, lets the batch in hand finish and commit, leaves the group, disconnects. */
  stop(): Promise<void>;
  /** True while the consumer is a member of its group. */
  joined(): boolean;
}

/** Identity and tuning of the stream, independent of the client. */
export interface StreamOptions {
  readonly topics: StreamTopics;
  readonly groupId: string;
  readonly delivery: Delivery;
  readonly transactionalIdPrefix: string;
  /** This worker's slot, stable across restarts where the platform gives one (a StatefulSet's pod name). */
  readonly workerId: string;
  /** Static group membership (KIP-345), where the client has it. */
  readonly groupInstanceId: string | undefined;
  readonly createTopics: boolean;
  readonly sessionTimeoutMs: number;
  readonly fetchMaxWaitMs: number;
  /** Codec of every output batch (input is read whatever its codec). */
  readonly compression: Compression;
  /** `consumer` (KIP-848) on @platformatic/kafka only; kafkajs is `classic`. */
  readonly groupProtocol: GroupProtocol;
  /** The broker-side assignor the `consumer` protocol asks for; the broker's default when undefined. */
  readonly groupRemoteAssignor: GroupRemoteAssignor | undefined;
}
