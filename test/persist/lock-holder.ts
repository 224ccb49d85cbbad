/** Child process for the lock test: opens the directory given as argv[2] for writing and waits to be killed. */
import { Database } from '../../src/index.js';

await Database.create({ path: process.argv[2]! });
process.stdout.write('ready\n');
setInterval(() => undefined, 1000);
