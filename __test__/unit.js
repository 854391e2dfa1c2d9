'use strict'
// Preloaded by `npm run test:unit` (after isolate.js): the run that needs no Redis, PostgreSQL or
// MariaDB and builds nothing from source (see support/unit.js, and support/servers.js, which fails
// a test that starts a server without skipping here). Test processes inherit the variable.

process.env.FLAKE_IDGEN_UNIT = '1'
