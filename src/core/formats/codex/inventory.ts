// The record kinds and fields Codex CLI writes in a rollout, as its reader (reader.ts) and writer (writer.ts) treat
// them: read ('used') or deliberately left alone ('ignored'), each with why. Checked against rollouts the pinned CLI
// wrote (test/compat/codex-today.test.ts): a kind or field it writes that is not listed here fails that test by name.
// A kind is the record's `type`, or `response_item:<payload.type>` / `event_msg:<payload.type>`; its fields are the
// record's own keys, its payload's (`payload.cwd`), a response item's `metadata` keys and those of the entries of a
// compacted record's `replacement_history_metadata` (`payload.replacement_history_metadata[].…`). Shallow: no
// content field below those.
import { isObject, type JsonObject } from '../../json';
import { keysUnder, type Known, type KnownKind, type RecordInventory } from '../inventory';

const used = (why: string): Known => ({ use: 'used', why });
const ignored = (why: string): Known => ({ use: 'ignored', why });
const kind = (k: Known, fields: Record<string, Known> = {}): KnownKind => ({ ...k, fields });

/** The inventory's name of a record's kind. */
function codexKindOf(record: JsonObject): string {
  const type = String(record.type);
  const payload = isObject(record.payload) ? record.payload : {};
  return type === 'response_item' || type === 'event_msg' ? `${type}:${String(payload.type)}` : type;
}

/** The field paths the inventory classifies of a record. */
function codexFieldsOf(record: JsonObject): string[] {
  const payload = isObject(record.payload) ? record.payload : {};
  const perItem = Array.isArray(payload.replacement_history_metadata) ? payload.replacement_history_metadata : [];
  return [
    ...new Set([
      ...Object.keys(record),
      ...keysUnder('payload', payload),
      ...keysUnder('metadata', record.metadata),
      ...perItem.flatMap((m: unknown) => keysUnder('payload.replacement_history_metadata[]', m)),
    ]),
  ];
}

/** What Codex records beside a response item, for its own history bookkeeping: none of it is sent to the model. */
const ITEM_METADATA: Record<string, Known> = {
  metadata: ignored("Codex's bookkeeping of the item (sequence, source): not sent to the model"),
  'metadata.history_sequence': ignored("the item's place in Codex's history: the file order gives ours"),
  'metadata.sampled_through_sequence': ignored('how far the model had seen when it wrote the item'),
  'metadata.client_authored': ignored('whether the client wrote the item: its role says which side'),
  'metadata.mcp_attribution': ignored('which MCP server an item came from'),
  'metadata.model_search_state': ignored("the state of the model's tool search when the item was written: not sent"),
  'metadata.retained_source': ignored('the item a compaction retained this one from'),
  'metadata.user_input_order': ignored("the user input's order in its turn: the file order gives it"),
  'metadata.fallback_token_limit_override': ignored("a tool output's truncation limit: the output is read as written"),
  'payload.type': used('the item kind'),
  'payload.id': ignored("the item's id: calls pair by call_id"),
  'payload.status': ignored('the item status (completed): an item in the rollout is done'),
  'payload.metadata': ignored("Codex's bookkeeping of the item: not sent"),
  'payload.internal_chat_message_metadata_passthrough': ignored('Codex-internal bookkeeping: not sent'),
};

const item = (why: string, fields: Record<string, Known>): KnownKind =>
  kind(used(why), { ...ITEM_METADATA, ...fields });

const CALL: Record<string, Known> = {
  'payload.call_id': used('pairs a call with its output'),
  'payload.name': used("the tool's name"),
};

export const codexInventory: RecordInventory = {
  kindOf: codexKindOf,
  fieldsOf: codexFieldsOf,
  common: {
    timestamp: used('the time of a round'),
    ordinal: used("the record's number: the record we append continues it"),
    type: used('the record kind'),
    payload: used("the record's content"),
  },
  kinds: {
    session_meta: kind(used('the thread: its id, folder, version and how its history is stored'), {
      'payload.id': used('the thread id: resume finds it by it'),
      'payload.session_id': used('the thread id in some versions'),
      'payload.timestamp': used("the thread's creation: where a fork's copy of its original ends"),
      'payload.cwd': used("the session's folder"),
      'payload.cli_version': used("the agent's version"),
      'payload.forked_from_id': used('a fork: the records it copied were paid for by its original'),
      'payload.history_mode': used('legacy or paginated: whether this file holds the thread and how it is written'),
      'payload.base_instructions': used('the instructions sent with every request: their size is overhead'),
      'payload.dynamic_tools': used("tools sent beside Codex's own: their size is overhead"),
      'payload.account_scoped': ignored('whether the thread belongs to the signed-in account'),
      'payload.runtime_workspace_roots': ignored('the workspace roots: cwd names the folder'),
      'payload.originator': ignored('which client started the thread (codex_exec, TUI)'),
      'payload.source': ignored('how the thread was started (exec, cli)'),
      'payload.thread_source': ignored('who started the thread (user, subagent)'),
      'payload.model_provider': ignored('the provider: resume keeps it; we never change it'),
      'payload.context_window': ignored('the window when the thread started: token_count records the current one'),
      'payload.git': ignored('the repository state at the start'),
      'payload.memory_mode': ignored("Codex's memory setting"),
      'payload.instructions': ignored('user instructions of older versions: sent as a message that is read'),
    }),
    turn_context: kind(used("a turn's settings: its model"), {
      'payload.model': used('the model of the turn'),
      'payload.turn_id': ignored("the turn's id"),
      'payload.root_turn_id': ignored("the turn's root id"),
      'payload.disabled_plugin_ids': ignored('plugin settings'),
      'payload.cwd': ignored("the turn's folder: session_meta names the session's"),
      'payload.approval_policy': ignored('approval settings'),
      'payload.approvals_reviewer': ignored('approval settings'),
      'payload.permission_profile': ignored('sandbox settings'),
      'payload.collaboration_mode': ignored('collaboration settings'),
      'payload.multi_agent_version': ignored('subagent settings'),
      'payload.realtime_active': ignored('voice settings'),
      'payload.summary': ignored('reasoning summary setting'),
      'payload.sandbox_policy': ignored('sandbox settings'),
      'payload.current_date': ignored('the date given to the model: sent in a message that is read'),
      'payload.timezone': ignored('the timezone given to the model: sent in a message that is read'),
      'payload.personality': ignored('a prompt setting: its text is sent in a message that is read'),
      'payload.effort': ignored('reasoning effort: usage counts what it cost'),
      'payload.user_instructions': ignored('sent in a message that is read'),
      'payload.developer_instructions': ignored('sent in a message that is read'),
      'payload.truncation_policy': ignored("Codex's truncation of tool outputs: outputs are read as written"),
      'payload.workspace_roots': ignored('the workspace roots'),
      'payload.comp_hash': ignored('a hash of the turn settings'),
    }),
    'response_item:message': item('a message: a prompt, a reply, or context Codex adds', {
      'payload.role': used('user, assistant or developer'),
      'payload.content': used('the text'),
      'payload.phase': ignored('commentary or final answer: both are sent alike'),
    }),
    'response_item:reasoning': item("the model's reasoning: its summary read, its encrypted content opaque", {
      'payload.summary': used('the readable summary'),
      'payload.content': used('readable reasoning, when kept'),
      'payload.encrypted_content': used('the opaque reasoning sent back to the model'),
    }),
    'response_item:function_call': item('a tool call', { ...CALL, 'payload.arguments': used('the input') }),
    'response_item:custom_tool_call': item('a tool call (freeform input)', {
      ...CALL,
      'payload.input': used('the input'),
    }),
    'response_item:local_shell_call': item('a shell call of older versions', {
      'payload.call_id': used('pairs a call with its output'),
      'payload.action': used('the command'),
    }),
    'response_item:web_search_call': item('a web search', { 'payload.action': used('what was searched') }),
    'response_item:function_call_output': item("a tool's output", {
      'payload.call_id': used('pairs the output with its call'),
      'payload.output': used('the output: the context itself'),
    }),
    'response_item:custom_tool_call_output': item("a tool's output", {
      'payload.call_id': used('pairs the output with its call'),
      'payload.output': used('the output'),
    }),
    'response_item:compaction': item("Codex's compaction: an encrypted summary, opaque", {
      'payload.encrypted_content': used('the opaque summary sent back to the model: counted, never shown'),
    }),
    compacted: kind(used('a compaction: the history Codex resumes from after it'), {
      'payload.message': used('the summary text of older compactions (no replacement history)'),
      'payload.replacement_history': used('the items that replace the context'),
      'payload.trigger': used('what started the compaction'),
      'payload.compactor': used('marks our own compacted records'),
      'payload.window_number': used('the compaction window: ours gets the next one'),
      'payload.window_id': ignored("the window's id (a UUID string; an integer in older records): not read"),
      'payload.first_window_id': ignored("the thread's first window id"),
      'payload.previous_window_id': ignored("the previous window's id"),
      'payload.replacement_history_metadata': ignored("Codex's bookkeeping of each replacement item: not sent"),
      'payload.replacement_history_metadata[].history_sequence': ignored('see metadata.history_sequence'),
      'payload.replacement_history_metadata[].sampled_through_sequence': ignored(
        'see metadata.sampled_through_sequence',
      ),
      'payload.replacement_history_metadata[].retained_source': ignored('the item it was retained from'),
      'payload.replacement_history_metadata[].client_authored': ignored('see metadata.client_authored'),
      'payload.replacement_history_metadata[].user_input_order': ignored('see metadata.user_input_order'),
      'payload.replacement_history_metadata[].mcp_attribution': ignored('see metadata.mcp_attribution'),
      'payload.replacement_history_metadata[].model_search_state': ignored('see metadata.model_search_state'),
      'payload.replacement_history_metadata[].compaction_without_file_error_sources': ignored(
        'errors of files the compaction could not include',
      ),
      'payload.retained_context': ignored('what the compaction retained, by id: the replacement history holds it'),
      'payload.compaction_response_id': ignored('the response that made the compaction'),
      'payload.latest_token_usage_record': ignored('the usage before the compaction: token counts are read'),
      'payload.resume_metadata': ignored("Codex's resume bookkeeping"),
    }),
    'event_msg:token_count': kind(used('the usage of a request, and the context window'), {
      'payload.type': used('the event kind'),
      'payload.info': used('the usage and the window'),
      'payload.rate_limits': used('the plan type (its limits are not read)'),
    }),
    'event_msg:task_started': kind(used("a turn started: where a fork's copy ends"), {
      'payload.type': used('the event kind'),
      'payload.started_at': used("when the turn started: after a fork's creation, it is the fork's own"),
      'payload.turn_attribution': ignored('who started the turn'),
      'payload.turn_id': ignored("the turn's id"),
      'payload.root_turn_id': ignored("the turn's root id"),
      'payload.model_context_window': ignored('the window: token_count records it with the usage'),
      'payload.collaboration_mode_kind': ignored('collaboration setting'),
    }),
    'event_msg:thread_settings_applied': kind(used("the fork's own first record (it names the thread)"), {
      'payload.type': used('the event kind'),
      'payload.thread_id': used('the thread it was applied to'),
      'payload.thread_settings': ignored('the settings'),
    }),
    'event_msg:item_completed': kind(ignored('a UI event: the item itself is a response item')),
    'event_msg:task_complete': kind(ignored('a turn ended: its last message is a response item')),
    'event_msg:user_message': kind(ignored('the UI copy of a prompt: the response item is read')),
    'event_msg:agent_message': kind(ignored('the UI copy of a reply: the response item is read')),
    'event_msg:agent_reasoning': kind(ignored('the UI copy of reasoning: the response item is read')),
    'event_msg:exec_command_end': kind(ignored('the UI copy of a command result: the output item is read')),
    'event_msg:patch_apply_end': kind(ignored('the UI copy of a patch result: the output item is read')),
    'event_msg:web_search_end': kind(ignored('the UI copy of a search: the call item is read')),
    'event_msg:context_compacted': kind(ignored('the UI note of a compaction: the compacted record is read')),
    'event_msg:turn_aborted': kind(ignored('the UI note of an aborted turn: its items are read')),
    world_state: kind(ignored("Codex's environment snapshot for its UI: what it sends is a message that is read")),
    token_usage_record: kind(ignored("Codex's usage by response: the token_count events carry the same figures")),
  },
};
