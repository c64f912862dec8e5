// The line kinds and fields Claude Code writes, as its reader (reader.ts, core/entries.ts `digestEntry`) treats them:
// read ('used') or deliberately left alone ('ignored'), each with why. Checked against sessions the pinned CLI wrote
// (test/compat/today-sessions.test.ts): a kind or field it writes that is not listed here fails that test by name.
// Shallow: a line's own keys, and the keys of its `message`.
import { keysUnder, type Known, type KnownKind, type RecordInventory } from '../inventory';
import type { JsonObject } from '../../json';

const used = (why: string): Known => ({ use: 'used', why });
const ignored = (why: string): Known => ({ use: 'ignored', why });
const kind = (k: Known, fields: Record<string, Known> = {}): KnownKind => ({ ...k, fields });

/** Fields every chain line (user, assistant, system, attachment) carries, and the `type` and `sessionId` of all. */
const COMMON: Record<string, Known> = {
  type: used('the line kind: decides how the line is read'),
  sessionId: used('the session a line was written under: lines under another id are copies (cost.ts)'),
  uuid: used('the chain: every line with a uuid is a link'),
  parentUuid: used('the chain: the walk from the leaf follows it; null is a root'),
  isSidechain: used('an inline subagent line (older versions): not on the main chain'),
  agentId: used("a subagent transcript's lines: tells its rounds apart"),
  timestamp: used('the time of a round; relinks a dangling parent to the nearest earlier line'),
  cwd: used("the session's folder: resume starts the program there"),
  version: used("the agent's version shown with the session"),
  userType: ignored('always "external" for a person; copied as-is on the lines we write'),
  entrypoint: ignored('how the CLI was started (cli, sdk): no bearing on the context'),
  gitBranch: ignored('the branch at the time: copied on the lines we write, not read'),
  slug: ignored("the session's short name for its UI: copied, not read"),
};

const MESSAGE_USER: Record<string, Known> = {
  message: used('the message the line holds'),
  'message.role': used('user or assistant'),
  'message.content': used('the text, tool calls and results: the context itself'),
};

export const claudeInventory: RecordInventory = {
  kindOf: (record: JsonObject) => String(record.type),
  fieldsOf: (record: JsonObject) => [...Object.keys(record), ...keysUnder('message', record.message)],
  common: COMMON,
  kinds: {
    user: kind(used('a prompt, a tool result or a compaction summary'), {
      ...MESSAGE_USER,
      isMeta: used('context the CLI adds itself, not a prompt'),
      isCompactSummary: used("the summary after Claude Code's own compact boundary"),
      isVisibleInTranscriptOnly: used('shown, never sent: written on our own summary line as Claude Code does'),
      toolUseResult: used("the tool's structured result beside the message: its size is the result's on screen"),
      sourceToolAssistantUUID: ignored('the assistant line whose call this answers: the tool_use_id says it'),
      promptId: ignored('an id of the prompt for telemetry: no bearing on the context'),
      permissionMode: ignored('the permission mode when the prompt was sent'),
      promptSource: ignored('where the prompt came from (typed, queued): the text is the same'),
      rowSource: ignored('who wrote the user line (local, harness, recorded): the message is sent alike'),
      sentAtMs: ignored('when the prompt was sent (ms): the line timestamp is read instead'),
      turnOrigin: ignored('what started the turn: no bearing on the context'),
      turnPosition: ignored('position of the line within its turn: the chain orders it'),
      permissionDecision: ignored('how the tool call was allowed: not sent to the model'),
      sandboxed: ignored('whether the tool ran sandboxed: not sent to the model'),
      origin: ignored('a prompt from another surface (e.g. a hook): the text is read as any prompt'),
      queueSkipAttachments: ignored('a queued prompt that skipped attachments: they are lines of their own'),
    }),
    assistant: kind(used("one content block of the model's response, with its usage"), {
      ...MESSAGE_USER,
      'message.id': used('the response the block belongs to: blocks of one id are one response'),
      'message.type': ignored('always "message"'),
      'message.model': used('the model: limits, prices and the tokenizer note'),
      'message.usage': used('the true size of the request and the cost'),
      'message.stop_reason': used('a response cut by max_tokens or a tool call'),
      'message.stop_sequence': ignored('the stop sequence hit, if any: no bearing on the context'),
      'message.stop_details': ignored("the API's detail of the stop: stop_reason says enough"),
      isApiErrorMessage: used('a synthetic line for a failed API call: not a response'),
      requestId: used('the API request: a response is counted once per request'),
      requestSessionId: used('the session that paid for a copied response (a fork)'),
      requestRef: ignored("a reference to the request's api-request line: the usage is read from the response"),
      requestedModel: used('the model asked for, when the reply names another (agentNow.ts)'),
      apiBlockIndex: ignored("the block's index in the response: the file order gives it"),
      promptCacheRequested: ignored('whether caching was asked for: usage says what was cached'),
      effort: ignored('reasoning effort setting: usage counts what it cost'),
      perTurnEffort: ignored('reasoning effort for the turn: usage counts what it cost'),
      madeBy: ignored('which part of the CLI made the call: no bearing on the context'),
      toolInputStreamMs: ignored('streaming time of the tool input'),
      thinkingDurationMs: ignored('time spent thinking'),
      thinkingDisplay: ignored('how thinking is displayed (omitted, summarized): the blocks say what is there'),
      attributionAgent: ignored("which agent a subagent's response is attributed to: agentId tells the transcript"),
    }),
    system: kind(used("Claude Code's notes: its compact boundary above all"), {
      subtype: used('compact_boundary, and the other notes'),
      logicalParentUuid: used('the line before a compact boundary'),
      compactMetadata: used('trigger, figures and preserved segment of a compaction'),
      content: used('the note text ("Conversation compacted")'),
      isMeta: used('a note the CLI adds itself'),
      level: ignored('the severity of a note: not sent'),
      commandOutcome: ignored("a slash command's outcome: not sent to the model"),
    }),
    attachment: kind(used('context the CLI attaches (files, reminders): sent as text'), {
      attachment: used('what is attached, by kind'),
      rendered: used('the text the CLI sends for it'),
      renderedRole: used('which side it is sent on'),
      renderedBesideToolResult: ignored('sent inside a tool result rather than alone: the text is counted alike'),
    }),
    'last-prompt': kind(used('the leaf the CLI resumes from'), {
      leafUuid: used('the leaf'),
      lastPrompt: used('the last prompt, rewritten when we write a summary'),
    }),
    'api-request': kind(used('what the CLI sent: the system prompt and tools of the next request'), {
      id: ignored("the request's own id"),
      querySource: ignored('which part of the CLI asked (main loop, compact)'),
      shapeHash: used('the api-request-shape line holding the system prompt and tools'),
      params: used('the model and settings of the request'),
      thread: ignored("the request's thread (none for the main loop): the chain gives the context"),
      echoWireToolInputs: ignored('whether tool inputs are echoed on the wire: a sending option'),
      keep: ignored('how many messages of the previous request were kept: the chain gives the context'),
      tail: ignored('hashes of the messages sent: the chain gives the context'),
      cacheControl: ignored('where the cache breakpoints were: usage says what was cached'),
      requestDigest: ignored('a digest of the request'),
      base: ignored('the request this one extends'),
    }),
    'api-request-shape': kind(used('the system prompt and tools, recorded once per shape'), {
      shapeHash: used('the shape referred to by api-request lines'),
      shape: used('the system prompt and tools: their size is the overhead'),
    }),
    'api-request-blob': kind(
      ignored('a message body stored once and referred to by hash: the chain holds the messages'),
      {
        hash: ignored('the blob id'),
        ...MESSAGE_USER,
        'message.output_config': ignored('output settings of a stored request'),
      },
    ),
    'cost-state': kind(used("Claude Code's running cost total: its own compaction and subagents counted"), {
      totalCostUSD: used('the running total'),
      modelUsage: used('the total by model'),
      hasUnknownModelCost: used('whether the total misses a model'),
      totalAPIDuration: ignored('time figures: not cost'),
      totalAPIDurationWithoutRetries: ignored('time figures: not cost'),
      totalToolDuration: ignored('time figures: not cost'),
      totalDuration: ignored('time figures: not cost'),
      startTime: ignored('time figures: not cost'),
      totalLinesAdded: ignored('edit figures: not cost'),
      totalLinesRemoved: ignored('edit figures: not cost'),
    }),
    'queue-operation': kind(ignored('a prompt queued while the model worked: the prompt itself is a user line'), {
      operation: ignored('enqueue or dequeue'),
      content: ignored('the queued text, sent later as a user line'),
    }),
    'tools-used': kind(ignored('the tools used so far: the calls are in the chain'), {
      tools: ignored('the list'),
    }),
    'atis-latch': kind(ignored('a CLI state flag: not part of the conversation'), {
      atis: ignored('the flag'),
    }),
    mode: kind(ignored("the session's mode switch: not sent"), { mode: ignored('the mode') }),
  },
};
