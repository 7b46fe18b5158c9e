// Runs s3rver in its own process so its memory never counts against the process under test.
// argv: port directory bucket
const S3rver = require('s3rver');
const multipartExtensions = require('./s3rver-multipart.cjs');
const [port, directory, bucket] = process.argv.slice(2);
const server = new S3rver({ port: Number(port), address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
// Ahead of s3rver's router, which answers these calls with MethodNotAllowed.
server.middleware.unshift(multipartExtensions(directory));
server.run().then(() => process.send && process.send('ready'));
