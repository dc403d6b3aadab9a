// The official openai SDK for Node against the sample's OpenAI-compatible route: the vectors it gets,
// with encoding_format float, base64 (returned as the base64 string, decoded here) and left out (the
// SDK then asks for base64 and decodes it itself), must equal bit for bit those of the sample's own
// POST /embed (which SampleApiTest checks against the model); an unknown model must be a 404 naming
// the models there are. Exits non-zero on any difference. SAMPLE_URL: the running sample.
import OpenAI, { NotFoundError } from 'openai';
import { readFileSync } from 'node:fs';

const base = process.env.SAMPLE_URL;
const model = 'all-minilm-l6-v2-q';
const texts = ['How do I set the number of threads?', 'a second, longer text about executors and deferred calls', 'bread'];
const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'not-checked', maxRetries: 0 });
const version = JSON.parse(readFileSync(new URL('./node_modules/openai/package.json', import.meta.url))).version;

const reference = await (await fetch(`${base}/embed`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ texts }),
})).json();

function fail(message) {
  console.error(`openai-node check: ${message}`);
  process.exit(1);
}

function compare(format, vectors) {
  vectors.forEach((vector, i) => {
    const expected = reference.vectors[i];
    if (vector.length !== expected.length) fail(`${format}: text ${i} has ${vector.length} dimensions, /embed ${expected.length}`);
    for (let d = 0; d < vector.length; d++) {
      if (Math.fround(vector[d]) !== Math.fround(expected[d])) {
        fail(`${format}: text ${i}, dimension ${d}: ${vector[d]} from /v1/embeddings, ${expected[d]} from /embed`);
      }
    }
  });
}

for (const format of ['float', 'base64', undefined]) {
  const response = await client.embeddings.create({ model, input: texts, ...(format ? { encoding_format: format } : {}) });
  if (response.model !== model || response.data.length !== texts.length) fail(`${format}: ${JSON.stringify(response).slice(0, 200)}`);
  const tokens = reference.tokens.reduce((a, b) => a + b, 0);
  if (response.usage.prompt_tokens !== tokens || response.usage.total_tokens !== tokens) {
    fail(`${format}: usage ${JSON.stringify(response.usage)}, /embed counted ${tokens} tokens`);
  }
  compare(format ?? 'default', response.data.map((item) => (typeof item.embedding === 'string'
    ? Array.from(new Float32Array(new Uint8Array(Buffer.from(item.embedding, 'base64')).buffer))
    : item.embedding)));
}

try {
  await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' });
  fail('an unknown model was accepted');
} catch (error) {
  if (!(error instanceof NotFoundError) || !/does not exist; this server has \[.*all-minilm-l6-v2-q/.test(String(error.message))) {
    fail(`an unknown model: expected a 404 naming ${model}, got ${error}`);
  }
}
const listed = await client.models.list();
if (!listed.data.some((entry) => entry.id === model)) fail(`GET /v1/models lists ${JSON.stringify(listed.data)}`);
console.log(`openai-node check: openai ${version}: float, base64 and the SDK's default (base64, decoded) give /embed's `
  + `vectors bit for bit for ${texts.length} texts; an unknown model is a 404 (NotFoundError); /v1/models lists ${model}`);
