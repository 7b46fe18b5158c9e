// Runs s3rver in its own process so its memory never counts against the process under test.
// argv: port directory bucket
const S3rver = require('s3rver');
const [port, directory, bucket] = process.argv.slice(2);
new S3rver({ port: Number(port), address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] })
  .run()
  .then(() => process.send && process.send('ready'));
