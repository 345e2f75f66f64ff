// Counts the o200k_base tokens of the demo toolbox's tool list in each form, as a request
// sends it (compact JSON). Usage: node count.mjs <form>=<file.json> ... [--check <form>=<max> ...]
// For MCP only the model-facing fields of each tool are counted: name, description, inputSchema.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import fs from 'fs';

const args = process.argv.slice(2);
const at = args.indexOf('--check');
const files = at < 0 ? args : args.slice(0, at);
const limits = Object.fromEntries(
  (at < 0 ? [] : args.slice(at + 1)).map((pair) => pair.split('=')).map(([k, v]) => [k, Number(v)]),
);
let failed = false;
for (const pair of files) {
  const [form, file] = pair.split('=');
  let tools = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (form === 'mcp') {
    tools = (Array.isArray(tools) ? tools : tools.tools).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
  }
  const count = encode(JSON.stringify(tools)).length;
  const limit = limits[form];
  const verdict = limit === undefined ? '' : count <= limit ? ` (at most ${limit}: ok)` : ` (at most ${limit}: OVER)`;
  if (limit !== undefined && count > limit) failed = true;
  console.log(`${form}: ${count} tokens${verdict}`);
}
process.exit(failed ? 1 : 0);
