// Preloaded (`node --require`) into a child process: `require('ioredis')` then loads ioredis 6
// (the `ioredis6` alias among the devDependencies), so a store made from a url, whose module
// loads ioredis with require (src/load-ioredis.ts), runs on ioredis 6 in that process.
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === 'ioredis' ? 'ioredis6' : request, ...rest);
};
