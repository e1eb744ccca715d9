// The audience's page: follows /events (a snapshot, then each change) and draws every
// game of the round, or one game large at /game/N. No library, no external asset.
"use strict";

const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const FILES = "abcdefgh";
const STALE_AFTER_MS = 3500;

const single = (() => {
  const m = location.pathname.match(/^\/game\/(\d+)/);
  return m ? Number(m[1]) : null;
})();
if (single !== null) document.body.classList.add("single");

const games = new Map(); // number -> game (as the server sends it), plus `seen`: local ms
let standings = null;
let lastHeard = Date.now();
let seq = 0;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The placement part of a FEN as a map of squares to pieces ("e4" -> "P").
function placement(fen) {
  const out = {};
  const rows = fen.split(" ")[0].split("/");
  rows.forEach((row, r) => {
    let f = 0;
    for (const c of row) {
      if (/\d/.test(c)) { f += Number(c); continue; }
      out[FILES[f] + (8 - r)] = c;
      f += 1;
    }
  });
  return out;
}

function clockText(ms) {
  if (ms === null || ms === undefined) return "–";
  ms = Math.max(0, ms);
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  const base = h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
  return ms < 20000 ? `${base}.${Math.floor(ms / 100) % 10}` : base;
}

// Time left for `side` ("w"/"b") now, counting down from the last update.
function left(game, side) {
  const i = side === "w" ? 0 : 1;
  const ms = game.clocks_ms[i];
  if (ms === null || ms === undefined) return null;
  return game.running === side ? ms - (Date.now() - game.seen) : ms;
}

function boardFor(game) {
  const board = el("div", "board");
  const pieces = placement(game.fen);
  const last = game.moves.length ? game.moves[game.moves.length - 1].uci : "";
  const marked = [last.slice(0, 2), last.slice(2, 4)];
  for (let r = 8; r >= 1; r--) {
    for (let f = 0; f < 8; f++) {
      const sq = FILES[f] + r;
      // a1 is dark.
      const cell = el("div", "sq " + ((f + r) % 2 === 1 ? "d" : "l"));
      cell.dataset.square = sq;
      if (marked.includes(sq)) cell.classList.add("mark");
      const p = pieces[sq];
      if (p) {
        const white = p === p.toUpperCase();
        const span = el("span", white ? "pw" : "pb", GLYPHS[p.toLowerCase()]);
        span.dataset.piece = p;
        cell.appendChild(span);
      }
      board.appendChild(cell);
    }
  }
  return board;
}

function playerRow(game, side) {
  const row = el("div", "player " + (side === "w" ? "white" : "black"));
  row.appendChild(el("span", "name", (side === "w" ? "\u25CB " : "\u25CF ") + (side === "w" ? game.white : game.black)));
  const clock = el("span", "clock " + (side === "w" ? "white" : "black"));
  clock.dataset.side = side;
  row.appendChild(clock);
  return row;
}

// A score in EPD's `ce` convention (centipawns; beyond ±32000 a mate: in N moves
// 32767 - (2N - 1), mated in N -32767 + 2N) as people read it, from the same side:
// "+0.35", "-1.20", "#5" (mates in 5), "-#3" (is mated in 3).
function scoreText(ce) {
  if (ce > 32000) return `#${Math.floor((32767 - ce + 1) / 2)}`;
  if (ce < -32000) return `-#${Math.floor((32767 + ce) / 2)}`;
  return `${ce >= 0 ? "+" : ""}${(ce / 100).toFixed(2)}`;
}

// A move's evaluation from White's side (the mover gives its own), with its depth.
function evalText(mv, ply) {
  if (!mv || mv.score === null || mv.score === undefined) return "";
  const white = ply % 2 === 0 ? mv.score : -mv.score;
  return scoreText(white) + (mv.depth ? "/" + mv.depth : "");
}

function lastMoveText(game) {
  const n = game.moves.length;
  if (!n) return "waiting for the first move";
  const mv = game.moves[n - 1];
  const blackFirst = game.start_fen.split(" ")[1] === "b";
  const ply = n - 1 + (blackFirst ? 1 : 0);
  const number = Number(game.start_fen.split(" ")[5] || 1) + Math.floor(ply / 2);
  let text = `${number}${ply % 2 === 0 ? "." : "..."} ${mv.san}`;
  const ev = evalText(mv, ply);
  if (ev) text += `  (${ev})`;
  return text;
}

// A PGN TimeControl tag as people say it: "300+2" is "5 min + 2 s".
function timeControlText(tc) {
  const m = /^(\d+)(?:\+(\d+(?:\.\d+)?))?$/.exec(tc || "");
  if (!m) return tc || "";
  const base = Number(m[1]);
  const text = base >= 60 && base % 60 === 0 ? `${base / 60} min` : `${base} s`;
  return m[2] && Number(m[2]) > 0 ? `${text} + ${m[2]} s` : text;
}

function drawGame(game) {
  const box = el("article", "game");
  box.id = "game-" + game.number;
  const title = el("a", "title", `Game ${game.number} · round ${game.round} · ${timeControlText(game.time_control)}`);
  title.href = "/game/" + game.number;
  box.appendChild(title);
  box.appendChild(playerRow(game, "b"));
  box.appendChild(boardFor(game));
  box.appendChild(playerRow(game, "w"));
  const status = el("div", "status");
  status.appendChild(el("span", "last", lastMoveText(game)));
  const result = el("span", "result", game.result ? game.result : "");
  if (game.reason) result.title = game.reason;
  status.appendChild(result);
  box.appendChild(status);
  return box;
}

function drawDetail(game) {
  const detail = document.getElementById("game-detail");
  detail.hidden = false;
  const list = document.getElementById("moves");
  list.replaceChildren();
  const blackFirst = game.start_fen.split(" ")[1] === "b";
  for (let i = 0; i < game.moves.length; i += 1) {
    const ply = i + (blackFirst ? 1 : 0);
    if (ply % 2 === 1 && i > 0) continue;
    const li = el("li");
    const white = ply % 2 === 0 ? game.moves[i] : null;
    const black = ply % 2 === 0 ? game.moves[i + 1] : game.moves[i];
    // Each move with its mover's evaluation, from White's side, and depth.
    const eval_ = (mv, p) => evalText(mv, p);
    li.appendChild(el("span", "san", white ? white.san : "…"));
    li.appendChild(el("span", "eval", eval_(white, 0)));
    li.appendChild(document.createTextNode(" "));
    if (black) {
      li.appendChild(el("span", "san", black.san));
      li.appendChild(el("span", "eval", eval_(black, 1)));
    }
    list.appendChild(li);
  }
  const last = game.moves[game.moves.length - 1];
  const analysis = document.getElementById("analysis");
  analysis.textContent = last && last.pv.length
    ? `${lastMoveText(game)} · pv ${last.pv.join(" ")}` : "";
}

function draw() {
  const box = document.getElementById("games");
  const shown = [...games.values()].filter((g) => single === null || g.number === single);
  box.replaceChildren(...shown.map(drawGame));
  if (!shown.length) {
    box.appendChild(el("p", "quiet", single === null ? "No game is under way yet." : `Game ${single} is not under way.`));
  }
  if (single !== null && shown.length) drawDetail(shown[0]);
  tick();
}

function drawStandings() {
  const box = document.getElementById("standings");
  if (!standings) return;
  const players = standings.table || [];
  if (!players.length) return;
  const table = el("table");
  const head = el("tr");
  for (const h of ["#", "player", "points", "games"]) head.appendChild(el("th", null, h));
  table.appendChild(head);
  for (const p of players) {
    const tr = el("tr");
    for (const v of [p.rank, p.name, p.points, p.games]) tr.appendChild(el("td", null, String(v)));
    table.appendChild(tr);
  }
  box.replaceChildren(table);
}

function addLog(text) {
  const log = document.getElementById("log");
  log.appendChild(el("li", null, text));
  while (log.children.length > 50) log.removeChild(log.firstChild);
}

function tick() {
  for (const game of games.values()) {
    const box = document.getElementById("game-" + game.number);
    if (!box) continue;
    for (const clock of box.querySelectorAll(".clock")) {
      const side = clock.dataset.side;
      const ms = left(game, side);
      clock.textContent = clockText(ms);
      clock.classList.toggle("running", game.running === side);
      clock.classList.toggle("low", game.running === side && ms !== null && ms < 10000);
    }
  }
  const stale = Date.now() - lastHeard > STALE_AFTER_MS;
  const feed = document.getElementById("feed");
  feed.className = "feed " + (stale ? "stale" : "live");
  feed.textContent = stale
    ? `feed stale: nothing from the referee for ${Math.round((Date.now() - lastHeard) / 1000)} s`
    : "live";
}

function take(ev) {
  lastHeard = Date.now();
  switch (ev.type) {
    case "snapshot":
      games.clear();
      // A game's clocks are as of its `at_ms` on the referee's clock: count from
      // there, whatever this machine's clock says.
      for (const g of ev.games) {
        g.seen = Date.now() - Math.max(0, (ev.now_ms || g.at_ms) - g.at_ms);
        games.set(g.number, g);
      }
      standings = ev.standings;
      for (const line of ev.log || []) addLog(line);
      seq = ev.seq;
      drawStandings();
      draw();
      return;
    case "heartbeat":
      return;
  }
  if (ev.seq !== undefined) {
    if (ev.seq <= seq) return;
    seq = ev.seq;
  }
  switch (ev.type) {
    case "game": {
      const g = ev.game;
      g.seen = Date.now();
      for (const [n, old] of games) if (old.round !== g.round && old.result) games.delete(n);
      games.set(g.number, g);
      // As the referee does: the games under way and the last 16 finished ones.
      const finished = [...games.values()].filter((x) => x.result).map((x) => x.number).sort((a, b) => a - b);
      for (const n of finished.slice(0, Math.max(0, finished.length - 16))) games.delete(n);
      draw();
      break;
    }
    case "move": {
      const g = games.get(ev.game);
      if (!g) return;
      g.moves.push(ev.move);
      g.fen = ev.fen;
      g.clocks_ms = ev.clocks_ms;
      g.running = ev.running;
      g.seen = Date.now();
      draw();
      break;
    }
    case "clocks": {
      const g = games.get(ev.game);
      if (!g) return;
      g.clocks_ms = ev.clocks_ms;
      g.running = ev.running;
      g.seen = Date.now();
      draw();
      break;
    }
    case "over": {
      const g = games.get(ev.game);
      if (!g) return;
      g.result = ev.result;
      g.reason = ev.reason;
      g.running = null;
      g.clocks_ms = ev.clocks_ms;
      draw();
      break;
    }
    case "standings":
      standings = ev.standings;
      drawStandings();
      break;
    case "log":
      addLog(ev.text);
      break;
  }
}

const source = new EventSource("/events");
source.onmessage = (m) => take(JSON.parse(m.data));
setInterval(tick, 100);
