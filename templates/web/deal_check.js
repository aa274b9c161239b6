// The deal, re-dealt from a record alone: notation/dealing.md in plain JavaScript.
//
// Written from the document, not from pbem's Python: it reads a record's tags and moves,
// works out for itself what each dealer's move draws from (its own card tables below are
// the document's; a test keeps them equal), re-deals every dealer's move from the seed
// and compares. The same file runs in node (tests/deal_check.js, the tests) and in the
// browser (the /verify page, inlined so the page still works saved to disk): plain
// ES2020, no dependencies, SHA-256 and HMAC written out (SubtleCrypto is missing on pages
// served without https, and would make every step asynchronous).
"use strict";
(function (root) {

  // -- SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104) -----------------------------------
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2]);

  function sha256(bytes) {
    const length = bytes.length;
    const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
    padded.set(bytes);
    padded[length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length * 8) >>> 0);
    const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f,
      0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    const w = new Uint32Array(64);
    const rotr = (x, n) => (x >>> n) | (x << (32 - n));
    for (let start = 0; start < padded.length; start += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(start + 4 * i);
      for (let i = 16; i < 64; i++) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let [a, b, c, d, e, f, g, k] = h;
      for (let i = 0; i < 64; i++) {
        const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g))
          + K[i] + w[i]) >>> 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c)))
          >>> 0;
        k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      [a, b, c, d, e, f, g, k].forEach((value, i) => { h[i] = (h[i] + value) >>> 0; });
    }
    const digest = new Uint8Array(32);
    const out = new DataView(digest.buffer);
    h.forEach((value, i) => out.setUint32(4 * i, value));
    return digest;
  }

  function hmacSha256(key, message) {
    if (key.length > 64) key = sha256(key);
    const inner = new Uint8Array(64 + message.length);
    const outer = new Uint8Array(64 + 32);
    for (let i = 0; i < 64; i++) {
      inner[i] = (key[i] || 0) ^ 0x36;
      outer[i] = (key[i] || 0) ^ 0x5c;
    }
    inner.set(message, 64);
    outer.set(sha256(inner), 64);
    return sha256(outer);
  }

  const utf8 = (text) => new TextEncoder().encode(text);
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

  // -- the stream of the dealer's move at ply p + 1 (README, Checking the deal) ----------
  function stream(seed, p) {
    const key = utf8(seed);
    let counter = 0, block = null, used = 8;
    const word = () => {
      if (used === 8) {
        block = new DataView(hmacSha256(key, utf8(`${p}/${counter}`)).buffer);
        counter += 1;
        used = 0;
      }
      return block.getUint32(4 * used++);
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

  // -- the tables of notation/dealing.md ---------------------------------------------------
  const repeated = (counts) => counts.flatMap(([name, copies]) => Array(copies).fill(name));
  const TABLES = {
    // Onix: every card, as its Gems in the order O S D X.
    onix: [["O", 20], ["S", 20], ["D", 20], ["X", 20], ["OS", 4], ["OD", 4], ["OX", 4],
      ["SD", 4], ["SX", 4], ["DX", 4]],
    // 6 nimmt! Baron Oxx: the cards 1 to 110; each seat's deck by the number of players.
    baronoxxDeck: { 2: 24, 3: 20, 4: 16, 5: 16, 6: 16, 7: 12, 8: 12, 9: 8, 10: 8 },
    // Gem Forge: the action cards, the tiles, the gems of the mine.
    gemforgeCards: [["swap-ornaments", 2], ["swap-gems", 2], ["take-from-ornament", 2],
      ["three-cards", 2], ["discard-gems", 4], ["mine", 6], ["take-from-cart", 2],
      ["set-two", 2], ["cancel", 4], ["copy-take", 4], ["copy-set", 4]],
    gemforgeTiles: Array.from({ length: 36 }, (_, i) => `T${String(i + 1).padStart(2, "0")}`),
    gemforgeMine: "RGYL".repeat(10).split(""),
  };

  // -- reading a record (README, Moves): tags, and the moves of the main line -----------
  const NUMBER = /^\d+\.(\.\.)?$/;
  const RESULT = /^(\*|\d+(\/\d+)?(-\d+(\/\d+)?)+)$/;
  const LABEL = /^[A-Za-z0-9][A-Za-z0-9_.+-]*:$/;
  const GLYPH = /^(!!|\?\?|!\?|\?!|!|\?|\$\d{1,3})$/;
  const TAG = /^\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$/;

  function splitRecords(text) {
    const lines = text.replace(/^\ufeff/, "").replace(/\r\n/g, "\n").split("\n");
    const records = [];
    let current = [], inMoves = false, inComment = false;
    for (const line of lines) {
      const stripped = line.trim();
      if (stripped.startsWith("[") && inMoves && !inComment) {
        records.push(current);
        current = [];
        inMoves = false;
      } else if (stripped && !stripped.startsWith("[")) {
        inMoves = true;
      }
      if (inMoves) {
        inComment = line.lastIndexOf("{") > line.lastIndexOf("}")
          || (inComment && !line.includes("}"));
      }
      current.push(line);
    }
    if (current.some((line) => line.trim()) || !records.length) records.push(current);
    return records.map(readRecord);
  }

  function readRecord(lines) {
    const tags = {};
    let index = 0;
    while (index < lines.length && !lines[index].trim()) index++;
    while (index < lines.length && lines[index].trim().startsWith("[")) {
      const match = TAG.exec(lines[index].trim());
      if (!match) throw new Error(`a tag is written [Name "value"], not ${lines[index].trim()}`);
      tags[match[1]] = match[2].replace(/\\(.)/g, "$1");
      index++;
    }
    return { tags, moves: mainLine(tokens(lines.slice(index).join("\n"))) };
  }

  function tokens(text) {
    const found = [];
    let at = 0;
    while (at < text.length) {
      const char = text[at];
      if (/\s/.test(char)) {
        at++;
      } else if (char === "{") {
        const end = text.indexOf("}", at);
        if (end < 0) throw new Error("a comment opened with '{' is never closed");
        found.push("{");
        at = end + 1;
      } else if (";()".includes(char)) {
        found.push(char);
        at++;
      } else {
        let end = at;
        while (end < text.length && !/\s/.test(text[end]) && !"{};()".includes(text[end])) end++;
        found.push(text.slice(at, end));
        at = end;
      }
    }
    return found;
  }

  // The moves outside variations, each {actor (a label, or null), text}: a dealer's move
  // in a variation is a supposition, not the seed's, and is not counted as a ply.
  function mainLine(words) {
    const moves = [];
    let depth = 0;
    for (let i = 0; i < words.length; i++) {
      const word = words[i];
      if (word === "(") { depth++; continue; }
      if (word === ")") { depth--; continue; }
      if (word === "{" || GLYPH.test(word) || NUMBER.test(word)) continue;
      if (RESULT.test(word)) continue;
      let move;
      if (LABEL.test(word)) {
        const text = [];
        while (i + 1 < words.length && words[i + 1] !== ";") text.push(words[++i]);
        i++;  // the ';'
        move = { actor: word.slice(0, -1), text: text.join(" ") };
      } else {
        move = { actor: null, text: word.replace(/[!?]+$/, "") };
      }
      if (depth === 0) moves.push(move);
    }
    return moves;
  }

  // -- what each game's dealer deals (notation/dealing.md) ------------------------------
  const GAMES = { onix: "onix", "6 nimmt! baron oxx": "baronoxx", baronoxx: "baronoxx",
    "gem forge": "gemforge", gemforge: "gemforge", onyx: "onyx" };
  const gameOf = (tags) => GAMES[(tags.Game || "").toLowerCase()];
  const players = (tags) => Object.keys(tags).filter((name) => /^Seat\d+$/.test(name)).length;

  // Each dealer constructor takes the record's tags and its dealer's moves ({ply, text},
  // in order) and returns deal(rng, move), called for each of them in turn: {expected:
  // the move the seed deals}, {refused: why the move cannot be one the seed deals}, or
  // {unchecked: why this check leaves it to pbem}.
  function onixDealer(tags) {
    const n = players(tags);
    const deck = TABLES.onix.flatMap(([card, copies]) => Array(copies - (card.length === 1
      ? n : 0)).fill(card));
    return (rng) => {
      const cards = rng.shuffle(deck);
      const piles = "ABCDE".split("").map((name, pile) =>
        `${name}=${cards.filter((_, place) => place % 5 === pile).join(",")}`);
      return { expected: `deal first P${1 + rng.below(n)} ${piles.join(" ")}` };
    };
  }

  function baronOxxDealer(tags, dealerMoves) {
    const n = players(tags);
    const each = TABLES.baronoxxDeck[n];
    // A game of a match begins with one draw per seat, right before its `rows`.
    const starts = new Set();
    dealerMoves.forEach((move, index) => {
      if (move.text.split(" ")[0] === "rows") starts.add(index - n);
    });
    let index = -1, unseen = [], hidden = [];
    const ascending = (cards) => cards.slice().sort((a, b) => a - b);
    return (rng, move) => {
      index += 1;
      if (starts.has(index) || index === 0) {
        unseen = Array.from({ length: 110 }, (_, i) => i + 1);
        hidden = Array(n).fill(each);
      }
      const words = move.text.split(" ");
      const kind = words[0];
      const seat = Number((words[1] || "").replace("#", "")) - 1;
      let drawn, expected;
      if (kind === "rows") {
        drawn = rng.sample(unseen, 5);
        expected = `rows ${drawn.join(" ")}`;
      } else if (kind === "left" && hidden[seat] !== undefined) {
        drawn = ascending(rng.sample(unseen, hidden[seat]));
        hidden[seat] = 0;
        expected = `left #${seat + 1} ${drawn.join(" ")}`;
      } else if (kind === "draw" && hidden[seat] !== undefined) {
        const count = Math.min(4, hidden[seat]);
        drawn = ascending(rng.sample(unseen, count));
        hidden[seat] -= count;
        // The rest of the hand comes from under the deck: cards everyone has seen, put
        // there by the rules (Variant 2), not by the seed.
        const under = words.slice(2 + count).map(Number);
        if (under.some((card) => unseen.includes(card))) {
          return { refused: `after the ${count} cards the seed draws (${drawn.join(" ")}), a draw lists only cards from under the deck, which everyone has seen` };
        }
        expected = ["draw", `#${seat + 1}`, ...drawn, ...under].join(" ");
      } else {
        return { refused: `the dealer's moves are rows …, draw #seat … and left #seat …, seats #1 to #${n}` };
      }
      unseen = unseen.filter((card) => !drawn.includes(card));
      return { expected };
    };
  }

  function gemForgeDealer(tags, dealerMoves, generator) {
    const n = players(tags);
    const table = { cards: repeated(TABLES.gemforgeCards), tiles: TABLES.gemforgeTiles };
    const started = { cards: false, tiles: false };
    return (rng, move) => {
      const [kind, ...items] = move.text.split(" ");
      if (kind === "first") return { expected: `first P${1 + rng.below(n)}` };
      if (kind === "mine") return { expected: `mine ${rng.shuffle(TABLES.gemforgeMine).join("")}` };
      if (!(kind in table)) return { refused: "the dealer's moves are first …, mine …, cards … and tiles …" };
      const whole = table[kind];
      const reshuffle = started[kind];
      started[kind] = true;
      if (reshuffle && generator === "HMAC-SHA256") {
        return { unchecked: "this generator shuffled a discard pile in the order discarded, "
          + "which only the game's rules can tell: pbem record check re-deals it" };
      }
      // Whatever the pile held, the dealer shuffles it in the table's order, so the
      // move's own cards say what was shuffled; they must be cards of the table (all of
      // it at the start), each no more often than the table has it.
      const left = whole.slice();
      const foreign = items.filter((item) => {
        const at = left.indexOf(item);
        if (at >= 0) left.splice(at, 1);
        return at < 0;
      });
      if (foreign.length || (!reshuffle && left.length)) {
        return { refused: reshuffle ? `a reshuffle holds ${kind} of the table, none more often than the table has it`
          : `the first ${kind} of a game is all ${whole.length} of the table` };
      }
      const pile = items.slice().sort((a, b) => whole.indexOf(a) - whole.indexOf(b));
      // A reshuffle is checked from its own cards: their order, not which they are (what
      // had been discarded is the game's business, notation/dealing.md).
      return { expected: `${kind} ${rng.shuffle(pile).join(" ")}`, orderOnly: reshuffle };
    };
  }

  const DEALERS = { onix: onixDealer, baronoxx: baronOxxDealer, gemforge: gemForgeDealer };
  const CHECKED = ["HMAC-SHA256-2", "HMAC-SHA256"];

  // -- the verdict for one record -------------------------------------------------------
  // {game, generator, players, seed, commitment, seedHash, commitmentOk, deals: [{ply,
  // text, status: "ok" | "wrong" | "unchecked", expected or why}], firstWrong (a ply or
  // null), problems: [sentences], checkable (false: this script cannot say, such as for
  // a running game or a Python-Random deal), ok}. The deals stop at the first that is
  // wrong: what follows it was dealt from a different game.
  function checkRecord(record) {
    const { tags, moves } = record;
    const game = gameOf(tags);
    const generator = tags.DealGenerator || "Python-Random";
    const report = { game: tags.Game || "", generator, players: players(tags),
      commitment: tags.SeedSHA256 || null, seed: tags.Seed === undefined ? null : tags.Seed,
      seedHash: null, commitmentOk: false, deals: [], firstWrong: null, problems: [],
      checkable: true, ok: false };
    const fail = (problem) => { report.problems.push(problem); return report; };
    const cannot = (problem) => { report.checkable = false; return fail(problem); };
    if (!game) return cannot(`the Game tag names ${JSON.stringify(tags.Game || "")}, not a game pbem deals`);
    if (game === "onyx") return cannot("Onyx has no dealer: there is no deal to check");
    if (report.players < 2) return cannot("the record names no seats (Seat1, Seat2, …): the deal depends on how many play");
    if (report.seed === null) return cannot("the record has no Seed tag: the seed is revealed only when the game is over");
    report.seedHash = hex(sha256(utf8(report.seed)));
    if (!report.commitment) {
      fail("the record has no SeedSHA256 tag, the commitment published at the start");
    } else if (report.seedHash !== report.commitment.toLowerCase()) {
      fail(`the SHA-256 of the seed is ${report.seedHash}, not the commitment ${report.commitment}`);
    } else {
      report.commitmentOk = true;
    }
    if (!CHECKED.includes(generator)) {
      return cannot(generator === "Python-Random"
        ? "this game was dealt by CPython's random.Random, before HMAC-SHA256: only pbem record check re-deals it"
        : `the DealGenerator tag names ${generator}, which this check does not know`);
    }
    const dealerMoves = [];
    moves.forEach((move, i) => {
      if ((move.actor || "").toLowerCase() === "dealer") dealerMoves.push({ ply: i + 1, text: move.text });
    });
    if (!dealerMoves.length) return cannot("the record has no dealer's moves");
    const deal = DEALERS[game](tags, dealerMoves, generator);
    for (const move of dealerMoves) {
      const dealt = deal(stream(report.seed, move.ply - 1), move);
      const entry = { ply: move.ply, text: move.text };
      if (dealt.unchecked) {
        entry.status = "unchecked";
        entry.why = dealt.unchecked;
      } else if (dealt.refused) {
        entry.status = "wrong";
        entry.why = dealt.refused;
      } else {
        entry.expected = dealt.expected;
        entry.status = dealt.expected === move.text ? "ok" : "wrong";
        if (dealt.orderOnly) entry.orderOnly = true;
      }
      report.deals.push(entry);
      if (entry.status === "wrong") {
        report.firstWrong = move.ply;
        return fail(entry.why ? `ply ${move.ply} (${move.text}): ${entry.why}`
          : `ply ${move.ply}: the seed deals ${entry.expected}, not ${move.text}`);
      }
    }
    report.ok = report.commitmentOk;
    return report;
  }

  // Every record of a file (a file may hold several, as PGN files do).
  function checkText(text) {
    return splitRecords(text).map(checkRecord);
  }

  const api = { sha256, hmacSha256, utf8, hex, stream, tables: TABLES, splitRecords,
    checkRecord, checkText };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.DealCheck = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
