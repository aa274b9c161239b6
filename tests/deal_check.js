// The re-dealer from the command line: `node tests/deal_check.js game.txt ...` checks
// every record of each file with templates/web/deal_check.js (the /verify page's own
// script, written from notation/dealing.md) and prints, as JSON, one report per record:
// the seed against its commitment, and each dealer's move checked or not.
"use strict";
const fs = require("fs");
const path = require("path");
const check = require(path.join(__dirname, "..", "templates", "web", "deal_check.js"));

const reports = process.argv.slice(2).map((file) => ({
  file, records: check.checkText(fs.readFileSync(file, "utf8")),
}));
process.stdout.write(JSON.stringify(reports));
