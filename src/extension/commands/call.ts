// How every command runs (commands/index.ts registers each through `runCommand`). A command's file holds its use case:
// a function that returns what it did or throws what stopped it. This module is the one place that tells who called:
// code (a plain options object: host tests, other extensions, a CodeLens or tree link that passes one) gets the
// rejection as it was thrown; a person (the palette, a menu, a tree node, a Uri) is told, once, here: a refusal as
// the message it carries (a warning unless it says otherwise, with its buttons), anything else as an error. The same
// decision chooses the `Ui` a command asks its questions through: a person gets the dialog, code gets the question's
// unattended answer (which may be a refusal: "no transcript given").
import * as vscode from 'vscode';
import type { Services } from '../services';
import { problemOf, type Schema } from '../../webview/validate';

export type Severity = 'info' | 'warning' | 'error';

/** A button of the message a person sees, and what it does (its own failure is told the same way). */
export interface Action {
  title: string;
  run: () => unknown;
}

interface Telling {
  severity?: Severity;
  actions?: Action[];
}

/** An expected refusal: what stands in the way, in words for a person (and the error code callers get). */
export class CommandInputError extends Error {
  override name = 'CommandInputError';
  readonly severity: Severity;
  readonly actions: readonly Action[];
  constructor(message: string, how: Telling = {}) {
    super(message);
    this.severity = how.severity ?? 'warning';
    this.actions = how.actions ?? [];
  }
}

/**
 * A failure of the engine put in words for a person (`said`, an error unless it says otherwise, with buttons that
 * help); code callers get the engine's own error (`cause`), unchanged.
 */
export class CommandFailure extends Error {
  override name = 'CommandFailure';
  readonly severity: Severity;
  readonly actions: readonly Action[];
  constructor(
    readonly said: string,
    override readonly cause: unknown,
    how: Telling = {},
  ) {
    super(said);
    this.severity = how.severity ?? 'error';
    this.actions = how.actions ?? [];
  }
}

/** How a command asks for what its caller did not give. */
export interface Ui {
  /** Asks a person (`question`: a dialog); a call from code gets `unattended()` instead, which may throw a refusal. */
  ask<T>(question: () => Thenable<T | undefined>, unattended: () => T | undefined): Promise<T | undefined>;
  /**
   * Brings something forward for a person (a view; a note, not waited for, about where to look); nothing for code,
   * whose caller looks where it wants.
   */
  present(show: () => unknown): Promise<void>;
}

/** What a command is called with besides its argument: how to ask, and a tree's other selected nodes. */
export interface Call {
  ui: Ui;
  selected?: unknown;
}

export type Command = (s: Services, arg: unknown, call: Call) => unknown;

const personUi: Ui = {
  ask: (question) => Promise.resolve(question()),
  present: async (show) => {
    await show();
  },
};

const unattendedUi: Ui = {
  // A refusal thrown by `unattended` becomes the rejection.
  ask: (_question, unattended) => new Promise((resolve) => resolve(unattended())),
  present: () => Promise.resolve(),
};

/** A plain options object: what code passes (not a Uri, a string, an array, nor a tree node). */
export function isOptionsObject(arg: unknown): arg is Record<string, unknown> {
  if (!arg || typeof arg !== 'object' || arg instanceof vscode.Uri || Array.isArray(arg)) return false;
  return !('contextValue' in arg && 'kind' in arg);
}

/**
 * The options object of a call checked against the command's schema (an argument that is not one, a Uri or a tree
 * node, gives none); one that does not fit is refused, saying which field and what was expected.
 */
export function optionsOf<T extends object>(schema: Schema<Partial<T>>, title: string, arg: unknown): Partial<T> {
  if (!isOptionsObject(arg)) return {};
  const problem = problemOf(schema, arg);
  if (problem) throw new CommandInputError(`${title}: invalid options: ${problem}`);
  return arg as Partial<T>;
}

/** Runs a command: code gets what it returns or throws; a person is told what stopped it. */
export async function runCommand(
  s: Services,
  id: string,
  command: Command,
  arg: unknown,
  selected: unknown,
): Promise<unknown> {
  const byCode = isOptionsObject(arg);
  try {
    return await command(s, arg, { ui: byCode ? unattendedUi : personUi, selected });
  } catch (err) {
    logFailure(s, id, err);
    if (byCode) throw err instanceof CommandFailure ? err.cause : err;
    await tell(err);
    return undefined;
  }
}

/** Runs `act` for a person (a notification's button): what stops it is told as a command's would be. */
export async function forPerson<T>(s: Services, what: string, act: () => Promise<T>): Promise<T | undefined> {
  try {
    return await act();
  } catch (err) {
    logFailure(s, what, err);
    await tell(err);
    return undefined;
  }
}

function logFailure(s: Services, id: string, err: unknown): void {
  if (err instanceof CommandInputError) s.log.warn(`${id}: ${err.message}`);
  else if (err instanceof CommandFailure && err.severity === 'info') s.log.info(`${id}: ${err.said}`);
  else if (err instanceof CommandFailure && err.severity === 'warning') s.log.warn(`${id}: ${err.said}`);
  else s.log.error(`${id} failed`, err instanceof CommandFailure ? err.cause : err);
}

const SHOW: Record<Severity, (message: string, ...items: string[]) => Thenable<string | undefined>> = {
  info: (m, ...items) => vscode.window.showInformationMessage(m, ...items),
  warning: (m, ...items) => vscode.window.showWarningMessage(m, ...items),
  error: (m, ...items) => vscode.window.showErrorMessage(m, ...items),
};

/** Says `err` to a person; with buttons, waits for the choice and runs it (its own failure told the same way). */
async function tell(err: unknown): Promise<void> {
  if (!(err instanceof CommandInputError || err instanceof CommandFailure)) {
    void vscode.window.showErrorMessage(`Agent Compactor: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const text = err instanceof CommandFailure ? err.said : err.message;
  const shown = SHOW[err.severity](text, ...err.actions.map((a) => a.title));
  if (!err.actions.length) return;
  const choice = await shown;
  const action = err.actions.find((a) => a.title === choice);
  if (!action) return;
  try {
    await action.run();
  } catch (next) {
    await tell(next);
  }
}
