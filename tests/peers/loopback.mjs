// Runs a server script with every listen() bound to 127.0.0.1, whatever host it asks for (server-everything's
// express app listens on all interfaces): the tests' servers are never reachable from outside the machine.
//   node loopback.mjs SCRIPT ARGS...
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
    return listen.call(this, Number(args[0]), '127.0.0.1', callback);
  }
  if (args[0] && typeof args[0] === 'object' && 'port' in args[0]) args[0] = { ...args[0], host: '127.0.0.1' };
  return listen.apply(this, args);
};
const [script, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], path.resolve(script), ...rest];
await import(pathToFileURL(path.resolve(script)).href);
