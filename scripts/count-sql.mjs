// node scripts/count-sql.mjs [dir]: how much SQL is hand-written in lib/store (issue #15's measure).
// Counts the source lines spanned by every string or template literal that holds SQL (a statement
// keyword in capitals), outermost literal only, plus lib/store's total TypeScript lines; the
// generated Prisma clients are left out.
//
// Figures (issue #15): before it (ea265fc), 174 lines in 14 files, 3,709 lines of TypeScript in
// lib/store (30 flat files); after the layout, the composition root and the policy/operator reads on
// Prisma, 158 lines in 14 files; after the audited operator writes, the explorer's runner and
// better-auth moved to Prisma Client, 148 lines in 13 files, 3,521 lines of TypeScript. What is
// left: the hot path (hot/), rollups, statistics, storm windows and retention (sql/), the explorer
// and audit-page reads (sql/shared, run through Prisma), migrations' bookkeeping and one
// insert-if-absent (prisma/run-abort-repository.ts). Later work adds its own (alert-repository.ts: 13).
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

const root = process.argv[2] ?? "lib/store";
const SQL = /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH|PRAGMA|CREATE|ON CONFLICT|RETURNING|FROM)\b/;

/** Outermost string and template literals as [firstLine, lastLine, text]; comments skipped. */
function literals(text) {
  const found = [];
  let line = 0;
  let i = 0;
  const step = () => {
    if (text[i] === "\n") line++;
    i++;
  };
  // Scans one literal starting at text[i] (a quote); templates recurse through ${ … }.
  const literal = () => {
    const quote = text[i];
    step();
    while (i < text.length && text[i] !== quote) {
      if (text[i] === "\\") step();
      else if (quote === "`" && text[i] === "$" && text[i + 1] === "{") {
        step();
        step();
        code("}");
        continue;
      }
      step();
    }
    step();
  };
  // Scans code until `end` (a closing brace of a template's ${ … }, or the file's end).
  const code = (end) => {
    let depth = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === "/" && text[i + 1] === "/") while (i < text.length && text[i] !== "\n") step();
      else if (c === "/" && text[i + 1] === "*") {
        while (i < text.length && !(text[i] === "*" && text[i + 1] === "/")) step();
        step();
        step();
      } else if (c === "'" || c === '"' || c === "`") {
        const [from, start] = [line, i];
        literal();
        if (end === null) found.push([from, line, text.slice(start, i)]);
      } else if (c === "{") {
        depth++;
        step();
      } else if (c === "}") {
        if (depth === 0 && end === "}") {
          step();
          return;
        }
        depth--;
        step();
      } else step();
    }
  };
  code(null);
  return found;
}

function sqlLinesOf(file) {
  const text = readFileSync(file, "utf8");
  const lines = new Set();
  for (const [from, to, body] of literals(text)) if (SQL.test(body)) for (let l = from; l <= to; l++) lines.add(l);
  return { sql: lines.size, total: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) };
}

let sql = 0;
let total = 0;
const perFile = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) entry.name !== "generated" && walk(full);
    else if (entry.name.endsWith(".ts")) {
      const counted = sqlLinesOf(full);
      sql += counted.sql;
      total += counted.total;
      if (counted.sql > 0) perFile.push([path.relative(root, full), counted.sql]);
    }
  }
};
walk(root);
for (const [file, lines] of perFile.sort((a, b) => b[1] - a[1])) console.log(`${String(lines).padStart(5)}  ${file}`);
console.log(`${sql} lines of hand-written SQL in ${perFile.length} files; ${total} lines of TypeScript in ${root} (generated clients excluded)`);
