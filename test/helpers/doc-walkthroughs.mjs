// The docs' walk-throughs as scripts: every ```sh block of a Markdown file is a step-by-step shell
// session a reader types against a running server (```bash blocks are shown, never run). A line
// `# → {…}` under a command is the answer the reader is told to expect; each `"field":value` it
// shows in full (no `…` in the value) must be in what that command printed. Used by the docs test
// (test/integration/docs-walkthroughs.test.ts) and the fresh-clone run (test/fresh-clone.mjs).

const FENCE = /^```sh\n([\s\S]*?)^```$/gm;
const ANSWER = /^\s*# → ?(.*)$/;
const ANSWER_CONTINUED = /^\s*#\s{2,}(.*)$/;
const SHOWN_FIELD = /"([A-Za-z_][\w-]*)":("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g;

/** The runnable (```sh) blocks of a Markdown text, in order. */
export function shellBlocks(markdown) {
  return [...markdown.matchAll(FENCE)].map((match) => match[1]);
}

/**
 * A block as steps: the commands up to each `# →` answer, and the `"field":value` pairs the answer
 * shows in full. Commands after the last answer form a step that expects nothing.
 * @returns {{ commands: string, expected: string[] }[]}
 */
export function steps(block) {
  const result = [];
  let commands = [];
  let answer = [];
  let inAnswer = false;
  const close = () => {
    if (commands.every((line) => line.trim() === "") && answer.length === 0) return;
    result.push({ commands: commands.join("\n"), expected: shownFields(answer.join(" ")) });
    commands = [];
    answer = [];
  };
  for (const line of block.split("\n")) {
    const opened = ANSWER.exec(line);
    if (opened) {
      answer.push(opened[1]);
      inAnswer = true;
      continue;
    }
    const continued = inAnswer ? ANSWER_CONTINUED.exec(line) : null;
    if (continued) {
      answer.push(continued[1]);
      continue;
    }
    if (inAnswer) {
      close();
      inAnswer = false;
    }
    commands.push(line);
  }
  close();
  return result;
}

/** The `"field":value` pairs an answer shows in full; values elided with `…` are not checked. */
export function shownFields(answer) {
  return [...answer.matchAll(SHOWN_FIELD)].map((match) => match[0]).filter((pair) => !pair.includes("…"));
}

const MARK = "@@walkthrough-step";

/**
 * One bash script for the blocks of one document, run in order in one shell (a reader's terminal:
 * variables and functions carry from block to block). Each step prints a marker first, so its output
 * can be told apart; `set -e` stops at the first command that fails.
 */
export function scriptFor(blocks) {
  const lines = ["set -e -o pipefail"];
  let index = 0;
  for (const block of blocks) {
    for (const step of steps(block)) {
      lines.push(`printf '\\n${MARK} %d\\n' ${index}`, step.commands);
      index++;
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * What the script printed, checked against the answers the blocks show.
 * @returns {string[]} the problems, one line each (empty: the document is right)
 */
export function checkOutput(blocks, output) {
  const printed = new Map();
  for (const part of output.split(`\n${MARK} `).slice(1)) {
    const newline = part.indexOf("\n");
    printed.set(Number(part.slice(0, newline)), part.slice(newline + 1));
  }
  const problems = [];
  let index = 0;
  for (const block of blocks) {
    for (const step of steps(block)) {
      const got = printed.get(index);
      if (got === undefined) {
        problems.push(`step ${index} never ran (a command before it failed):\n${step.commands}`);
      } else {
        for (const field of step.expected) {
          if (!got.includes(field)) problems.push(`step ${index}: shown ${field}, got ${got.trim()}\n  after: ${step.commands.trim()}`);
        }
      }
      index++;
    }
  }
  return problems;
}
