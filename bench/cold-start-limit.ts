// The limit of the cold start: the least a Fastify service on PostgreSQL does before its /readyz can
// answer 200 (Node's own start, loading Fastify and pg, one connection and `SELECT 1`), spawned and
// timed exactly as the service is (bench/cold-start.ts). Not part of the service.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
await pool.query('SELECT 1');
const app = Fastify({ logger: false });
app.get('/readyz', async () => {
  await pool.query('SELECT 1');
  return { status: 'ok' };
});
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
const stop = () => void app.close().then(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
