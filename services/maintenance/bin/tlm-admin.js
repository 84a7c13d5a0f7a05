#!/usr/bin/env node
// tlm-admin, the operator's command line: runs the built CLI (services/maintenance/dist/cli.js, made by `make build`).
require('../dist/cli.js');
