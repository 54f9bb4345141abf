import type { ClientRequest, IncomingMessage } from 'node:http';
import { decodedBody } from './decoded-body.js';
import { NodeBody } from './node-body.js';
import { NodeHeaders } from './node-headers.js';
import type { WireReply } from './wire-reply.js';

/**
 * A `node:http` reply as the wire path reads one: its status, its headers (read in place
 * from Node's raw list) and its body decoded as it arrives (`decodedBody`). Cancelling
 * the body destroys the request, so its connection is dropped, never pooled half read.
 * Throws a RangeError for a reply declaring more content codings than are decoded.
 */
export class NodeReply implements WireReply {
  readonly status: number;
  readonly type = 'basic';
  readonly headers: NodeHeaders;
  readonly body: NodeBody;

  constructor(response: IncomingMessage, request: ClientRequest) {
    this.status = response.statusCode ?? 0;
    this.headers = new NodeHeaders(response.rawHeaders);
    this.body = new NodeBody(decodedBody(response, this.headers.get('content-encoding')), () =>
      request.destroy(),
    );
  }
}
