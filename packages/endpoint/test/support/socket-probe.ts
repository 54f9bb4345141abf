import net from 'node:net';

/**
 * Counts every outgoing connection the process starts, at the socket layer:
 * `net.Socket.prototype.connect`, which every TCP client (fetch's undici
 * included) goes through. `stop()` restores it and says how many there were.
 */
export function probeSockets(): { readonly count: () => number; stop: () => number } {
  const original = net.Socket.prototype.connect;
  let connects = 0;
  net.Socket.prototype.connect = function connect(this: net.Socket, ...args: unknown[]) {
    connects += 1;
    return (original as (...parameters: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  return {
    count: () => connects,
    stop: () => {
      net.Socket.prototype.connect = original;
      return connects;
    },
  };
}
