import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Real, minimal media files (simulator/media-files.ts) and a throwaway HTTP server on 127.0.0.1. */
export * from '../../simulator/media-files.ts';

export interface TestServer {
  /** http://127.0.0.1:port */
  origin: string;
  close(): Promise<void>;
}

export async function listen(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
