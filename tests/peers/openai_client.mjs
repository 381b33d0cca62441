// The official `openai` client against `engine serve`, one scenario per run; prints what it saw as one JSON line.
//   node openai_client.mjs BASE_URL SCENARIO [MODEL] [API_KEY]
// Scenarios: models, retrieve, complete, history, stream, not_found, bad_token, cancel.
import OpenAI from 'openai';

const [baseURL, scenario, model = 'calculator', apiKey = 'unused-token-0000'] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 20000 });
const print = (v) => process.stdout.write(JSON.stringify(v) + '\n');

async function main() {
  switch (scenario) {
    case 'models': {
      const ids = [];
      const created = [];
      for await (const m of client.models.list()) ids.push(m.id), created.push(m.created);
      return print({ ids, created });
    }
    case 'retrieve': {
      const m = await client.models.retrieve(model);
      let missing = null;
      try {
        await client.models.retrieve('no-such-model');
      } catch (e) {
        missing = { status: e.status, class: e.constructor.name, code: e.code };
      }
      return print({ id: m.id, object: m.object, created: m.created, owned_by: m.owned_by, missing });
    }
    case 'complete': {
      const r = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'What is 6 * 7?' }] });
      return print({ content: r.choices[0].message.content, finish: r.choices[0].finish_reason, usage: r.usage,
                     object: r.object, id: r.id, request_id: r._request_id });
    }
    case 'history': {
      const r = await client.chat.completions.create({ model, messages: [
        { role: 'system', content: 'ignored' },
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'Hello Ada!' },
        { role: 'user', content: [{ type: 'text', text: 'What is my name?' }] }] });
      return print({ content: r.choices[0].message.content });
    }
    case 'stream': {
      const stream = await client.chat.completions.create({ model, stream: true, stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'What is 6 * 7?' }] });
      let content = '', chunks = 0, usage = null, finish = null, role = null;
      for await (const c of stream) {
        ++chunks;
        if (c.usage) usage = c.usage;
        for (const choice of c.choices) {
          if (choice.delta.role) role = choice.delta.role;
          if (choice.delta.content) content += choice.delta.content;
          if (choice.finish_reason) finish = choice.finish_reason;
        }
      }
      return print({ content, chunks, usage, finish, role });
    }
    case 'not_found':
    case 'bad_token': {
      try {
        await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
        return print({ error: null });
      } catch (e) {
        return print({ error: e.constructor.name, status: e.status, code: e.code, type: e.type, param: e.param,
                       message: e.message });
      }
    }
    case 'stream_error': {
      try {
        const stream = await client.chat.completions.create({ model, stream: true,
          messages: [{ role: 'user', content: 'hi' }] });
        for await (const c of stream) { /* the error comes as a chunk */ }
        return print({ error: null });
      } catch (e) {
        return print({ error: e.constructor.name, message: e.message });
      }
    }
    case 'cancel': {
      // Reads the first chunk of a long answer, then gives up on the stream.
      const stream = await client.chat.completions.create({ model, stream: true,
        messages: [{ role: 'user', content: 'take your time' }] });
      for await (const c of stream) { stream.controller.abort(); break; }
      return print({ aborted: true });
    }
    default:
      throw new Error('unknown scenario ' + scenario);
  }
}

main().catch((e) => { print({ crashed: String(e) }); process.exit(1); });
