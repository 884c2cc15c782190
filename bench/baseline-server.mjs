// The baseline: the least work node:http can do to answer with the service's exact bytes. The
// gap between it and tagsvc is what the framework, authentication and the database cost.
//
// Plain JavaScript run by plain `node`, like the compiled service, so neither side pays for a
// loader. Settings come from the environment: PORT, BODY_FILE (the bytes to send),
// CONTENT_TYPE and STATUS.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env.BODY_FILE);
const headers = {
  'content-type': process.env.CONTENT_TYPE || 'application/json',
  'content-length': String(body.length),
};
const status = Number(process.env.STATUS || 200);

const server = createServer((request, response) => {
  // Read the request body to its end first, as the service must, so scenarios that upload
  // compare like with like; for GET this is a no-op.
  request.resume();
  request.once('end', () => {
    response.writeHead(status, headers);
    response.end(body);
  });
});

server.listen(Number(process.env.PORT), process.env.HOST || '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
