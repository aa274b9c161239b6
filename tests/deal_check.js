// An independent re-dealer, written from notation/README.md ("Checking the deal", the
// generator HMAC-SHA256) and the card lists it names, not from pbem's Python: the tests
// (tests/test_deal_generator.py) run it with node and compare every dealer's move.
//
// stdin: {"data": "<pbem/engines>", "jobs": [job, ...]}; a job is one dealer's move:
//   {"game": "onix"|"baronoxx"|"gemforge", "seed", "ply" (plies before it),
//    "recorded" (the move as the record writes it, which says what kind of deal it is),
//    "players", and what the record alone does not say: Baron Oxx "unseen", "hidden"
//    (cards seat s's deck still hides), "bottoms"; Gem Forge "discard" for a reshuffle}.
// stdout: a JSON list, for each job the move text this file deals.
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

// -- the stream: HMAC-SHA256(seed, "p/c") read as big-endian unsigned 32-bit words ------
function stream(seed, p) {
  let counter = 0, block = null, used = 8;
  const word = () => {
    if (used === 8) {
      block = crypto.createHmac("sha256", Buffer.from(seed, "utf8"))
        .update(`${p}/${counter}`, "ascii").digest();
      counter += 1;
      used = 0;
    }
    return block.readUInt32BE(4 * used++);
  };
  const below = (n) => {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const w = word();
      if (w < limit) return w % n;
    }
  };
  const shuffle = (items) => {
    const a = items.slice();
    for (let i = a.length - 1; i >= 1; i--) {
      const j = below(i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  };
  const sample = (items, r) => {
    const a = items.slice();
    for (let i = 0; i < r; i++) {
      const j = i + below(a.length - i);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a.slice(0, r);
  };
  return { word, below, shuffle, sample };
}

// -- the card lists -------------------------------------------------------------------
function csvRows(file) {
  const lines = fs.readFileSync(file, "utf8").split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"));
  const head = lines[0].split(",");
  return lines.slice(1).map((line) => {
    const cells = line.split(",");
    return Object.fromEntries(head.map((name, i) => [name, cells[i]]));
  });
}

const LETTERS = { circle: "O", square: "S", diamond: "D", cross: "X" };

function onixDeck(data, players) {
  const cards = csvRows(path.join(data, "onix", "cards.csv"))
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((row) => "OSDX".split("").filter((l) => row.gems.split(" ")
      .map((g) => LETTERS[g]).includes(l)).join(""));
  for (let k = 0; k < players; k++) {
    for (const gem of "OSDX") cards.splice(cards.indexOf(gem), 1);
  }
  return cards;
}

const ACTION_CARDS = [["swap-ornaments", 2], ["swap-gems", 2], ["take-from-ornament", 2],
  ["three-cards", 2], ["discard-gems", 4], ["mine", 6], ["take-from-cart", 2],
  ["set-two", 2], ["cancel", 4], ["copy-take", 4], ["copy-set", 4]]
  .flatMap(([name, copies]) => Array(copies).fill(name));

// -- each game's dealer's moves -------------------------------------------------------
const ascending = (cards) => cards.slice().sort((a, b) => a - b);

function deal(job, data) {
  const rng = stream(job.seed, job.ply);
  const kind = job.recorded.split(" ")[0];
  const seat = (job.recorded.split(" ")[1] || "").replace("#", "");
  if (job.game === "onix") {
    const cards = rng.shuffle(onixDeck(data, job.players));
    const piles = "ABCDE".split("").map((name, p) =>
      `${name}=${cards.filter((_, place) => place % 5 === p).join(",")}`);
    return `deal first P${1 + rng.below(job.players)} ${piles.join(" ")}`;
  }
  if (job.game === "baronoxx") {
    if (kind === "rows") return `rows ${rng.sample(job.unseen, 5).join(" ")}`;
    if (kind === "left") {
      return `left #${seat} ${ascending(rng.sample(job.unseen, job.hidden)).join(" ")}`;
    }
    const count = Math.min(4, job.hidden);
    const cards = ascending(rng.sample(job.unseen, count))
      .concat(job.bottoms.slice(0, 4 - count));
    return `draw #${seat} ${cards.join(" ")}`;
  }
  if (kind === "first") return `first P${1 + rng.below(job.players)}`;
  if (kind === "mine") return `mine ${rng.shuffle("RGYL".repeat(10).split("")).join("")}`;
  let items = job.discard;
  if (items === null) {
    items = kind === "cards" ? ACTION_CARDS
      : csvRows(path.join(data, "gemforge", "tiles.csv")).map((row) => row.id);
  }
  return `${kind} ${rng.shuffle(items).join(" ")}`;
}

const input = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(input.jobs.map((job) => deal(job, input.data))));
