// Backends that speak what the echo pods do not, for the backend-protocol and
// proxy-ssl e2e tests: a gRPC server (unary, no .proto: Buffers in and out),
// an HTTPS server that reports the client certificate it was shown, and a
// FastCGI responder (the protocol's records, enough for one request per
// connection). Each listens on a loopback address of the test's choosing and
// is published with a selector-less Service and an EndpointSlice applied
// with kubectl: the "pod" is this process's server.
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { yamlDocuments } from './harness/index.ts';

export interface Listening {
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

const identity = (value: Buffer): Buffer => value;

/** The one unary method of the test service: /resty.Echo/Say. */
export const ECHO_SERVICE: grpc.ServiceDefinition = {
  say: {
    path: '/resty.Echo/Say',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

/** What the gRPC server answers: what it received and how, as JSON. */
export interface GrpcEcho {
  readonly pod: string;
  readonly message: string;
  readonly authority: string;
  readonly forwardedHost: string | null;
  readonly realIp: string | null;
}

/** A gRPC server (h2c, or TLS with `tls`) on `address`, answering /resty.Echo/Say with a GrpcEcho. */
export async function startGrpcBackend(address: string, pod: string, tls?: { cert: string; key: string }): Promise<Listening> {
  const server = new grpc.Server();
  server.addService(ECHO_SERVICE, {
    say: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const first = (name: string): string | null => {
        const value = call.metadata.get(name)[0];
        return value === undefined ? null : String(value);
      };
      const echo: GrpcEcho = { pod, message: call.request.toString('utf8'), authority: call.getHost(), forwardedHost: first('x-forwarded-host'), realIp: first('x-real-ip') };
      callback(null, Buffer.from(JSON.stringify(echo)));
    },
  });
  const credentials = tls === undefined
    ? grpc.ServerCredentials.createInsecure()
    : grpc.ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }], false);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${address}:0`, credentials, (err, bound) => (err ? reject(err) : resolve(bound)));
  });
  return { address, port, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

/** One unary call through `target` (host:port); rejects with the gRPC error (its `code`). */
export function callEcho(target: string, credentials: grpc.ChannelCredentials, options: grpc.ChannelOptions, message: string): Promise<GrpcEcho> {
  const Client = grpc.makeGenericClientConstructor(ECHO_SERVICE, 'Echo');
  const client = new Client(target, credentials, options);
  return new Promise<GrpcEcho>((resolve, reject) => {
    client.makeUnaryRequest<Buffer, Buffer>('/resty.Echo/Say', identity, identity, Buffer.from(message), new grpc.Metadata(), { deadline: Date.now() + 5000 },
      (err, reply) => {
        client.close();
        if (err) reject(err);
        else resolve(JSON.parse((reply as Buffer).toString('utf8')) as GrpcEcho);
      });
  });
}

/** An HTTPS server answering JSON `{pod, clientCertificate}` (the CN of the certificate the client showed, or null). */
export async function startHttpsBackend(address: string, pod: string, tls: { cert: string; key: string }): Promise<Listening> {
  const server = createHttpsServer({ cert: tls.cert, key: tls.key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const clientCertificate = peer && typeof peer.subject?.CN === 'string' ? peer.subject.CN : null;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ pod, clientCertificate, servername: (req.socket as TLSSocket & { servername?: string }).servername ?? null }));
  });
  return listen(server, address);
}

const FCGI = { BEGIN_REQUEST: 1, END_REQUEST: 3, PARAMS: 4, STDIN: 5, STDOUT: 6 } as const;

function record(type: number, requestId: number, content: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt8(1, 0);
  header.writeUInt8(type, 1);
  header.writeUInt16BE(requestId, 2);
  header.writeUInt16BE(content.length, 4);
  return Buffer.concat([header, content]);
}

/** FastCGI name-value pairs (lengths of 1 or 4 bytes). */
function readParams(data: Buffer): Record<string, string> {
  const params: Record<string, string> = {};
  let at = 0;
  const length = (): number => {
    const first = data.readUInt8(at);
    if (first < 128) { at += 1; return first; }
    const long = data.readUInt32BE(at) & 0x7fffffff;
    at += 4;
    return long;
  };
  while (at < data.length) {
    const nameLength = length();
    const valueLength = length();
    const name = data.subarray(at, at + nameLength).toString('latin1');
    at += nameLength;
    params[name] = data.subarray(at, at + valueLength).toString('latin1');
    at += valueLength;
  }
  return params;
}

/** A FastCGI responder answering `text/plain` JSON of the params it received (one request per connection). */
export async function startFastcgiResponder(address: string, pod: string): Promise<Listening> {
  const server = createTcpServer((socket: Socket) => {
    let buffered = Buffer.alloc(0);
    let params = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 8) {
        const type = buffered.readUInt8(1);
        const requestId = buffered.readUInt16BE(2);
        const contentLength = buffered.readUInt16BE(4);
        const padding = buffered.readUInt8(6);
        if (buffered.length < 8 + contentLength + padding) return;
        const content = buffered.subarray(8, 8 + contentLength);
        buffered = buffered.subarray(8 + contentLength + padding);
        if (type === FCGI.PARAMS) params = Buffer.concat([params, content]);
        if (type === FCGI.STDIN && contentLength === 0) {
          const body = JSON.stringify({ pod, params: readParams(params) });
          const end = Buffer.alloc(8); // appStatus 0, FCGI_REQUEST_COMPLETE
          socket.end(Buffer.concat([
            record(FCGI.STDOUT, requestId, Buffer.from(`Status: 200 OK\r\nContent-Type: text/plain\r\n\r\n${body}`)),
            record(FCGI.STDOUT, requestId, Buffer.alloc(0)),
            record(FCGI.END_REQUEST, requestId, end),
          ]));
          return;
        }
      }
    });
  });
  return listen(server, address);
}

async function listen(server: { listen(port: number, host: string, cb: () => void): unknown; once(event: 'error', cb: (err: Error) => void): unknown; address(): AddressInfo | string | null; close(cb: () => void): unknown; closeAllConnections?: () => void }, address: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    address, port,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

/** A Service without a selector, port 80 named `app`, and its EndpointSlice pointing at `backends` (none: no endpoints). */
export function manualServiceManifest(name: string, backends: readonly Listening[], namespace = 'default'): string {
  const port = backends[0]?.port ?? 1;
  return yamlDocuments([
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'app', port: 80, protocol: 'TCP' }] } },
    {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${name}-manual`, namespace, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: backends.map((backend) => ({ addresses: [backend.address], conditions: { ready: true } })),
      ports: [{ name: 'app', port, protocol: 'TCP' }],
    },
  ]);
}
