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

// Time left for `side` ("w"/"b") at `now`, counting down from the last update.
function left(game, side, now) {
  const i = side === "w" ? 0 : 1;
  const ms = game.clocks_ms[i];
  if (ms === null || ms === undefined) return null;
  return game.running === side ? ms - Math.max(0, now - game.seen) : ms;
}

// A time of day as "23:01:05".
function timeOfDay(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
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
      // Coordinates on the edge squares, as on a printed board.
      if (r === 1) cell.appendChild(el("span", "coord file", FILES[f]));
      if (f === 0) cell.appendChild(el("span", "coord rank", String(r)));
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

// A mover's score in EPD's `ce` convention (centipawns from its side; beyond ±32000 a
// mate: in N moves 32767 - (2N - 1), mated in N -32767 + 2N) as people read it from
// White's side (`black` when Black moved): "+0.35", "-1.20", "#5" (White mates in 5),
// "-#3" (Black mates in 3).
function scoreText(ce, black) {
  const sign = black ? -1 : 1;
  if (Math.abs(ce) > 32000) {
    const moves = ce > 0 ? Math.floor((32767 - ce + 1) / 2) : Math.floor((32767 + ce) / 2);
    return (sign * ce > 0 ? "#" : "-#") + moves;
  }
  const white = sign * ce;
  return `${white >= 0 ? "+" : ""}${(white / 100).toFixed(2)}`;
}

// A move's evaluation from White's side (the mover gives its own), with its depth.
function evalText(mv, ply) {
  if (!mv || mv.score === null || mv.score === undefined) return "";
  return scoreText(mv.score, ply % 2 === 1) + (mv.depth ? "/" + mv.depth : "");
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

// The round as the game's PGN Round tag says it (`1.2`: round 1, its second encounter).
function roundText(game) {
  return game.round_tag || String(game.round);
}

function drawGame(game) {
  const box = el("article", "game");
  box.id = "game-" + game.number;
  const title = el("a", "title", `Game ${game.number} · round ${roundText(game)} · ${timeControlText(game.time_control)}`);
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

// A move's time: "1.2s", "14s", "1:05".
function emtText(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 10000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// How far the graph goes, in pawns from White's side: a mate is drawn at the edge.
const GRAPH_PAWNS = 8;

// The evaluation graph: each scored move's evaluation from White's side, in pawns,
// clamped to the graph's range, as an inline SVG: light below the line (White's
// share), dark above it, the middle line even.
function evalGraph(game) {
  const NS = "http://www.w3.org/2000/svg";
  const blackFirst = game.start_fen.split(" ")[1] === "b";
  const plies = Math.max(game.moves.length, 20);
  const points = [];
  game.moves.forEach((mv, i) => {
    if (mv.score === null || mv.score === undefined) return;
    const ply = i + (blackFirst ? 1 : 0);
    const white = ply % 2 === 0 ? mv.score : -mv.score;
    let pawns = Math.abs(white) > 32000 ? Math.sign(white) * GRAPH_PAWNS : white / 100;
    pawns = Math.max(-GRAPH_PAWNS, Math.min(GRAPH_PAWNS, pawns));
    points.push([i + 1, 50 - (pawns / GRAPH_PAWNS) * 48]);
  });
  const svg = document.createElementNS(NS, "svg");
  svg.id = "eval-graph";
  svg.setAttribute("viewBox", `0 0 ${plies} 100`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "evaluation graph, from White's side");
  svg.dataset.points = String(points.length);
  const add = (tag, attrs) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    svg.appendChild(e);
    return e;
  };
  add("rect", { x: 0, y: 0, width: plies, height: 100, class: "graph-bg" });
  if (points.length) {
    const line = points.map(([x, y]) => `${x},${y.toFixed(1)}`).join(" ");
    add("polygon", { points: `${points[0][0]},100 ${line} ${points[points.length - 1][0]},100`, class: "graph-area" });
    add("polyline", { points: line, class: "graph-line" });
  }
  add("line", { x1: 0, y1: 50, x2: plies, y2: 50, class: "graph-mid" });
  return svg;
}

// Whether the move list follows the last move: it does unless someone scrolled it
// back to read, until they scroll to its end again.
let followMoves = true;
document.querySelector("#game-detail .moves-box").addEventListener("scroll", (e) => {
  const box = e.target;
  followMoves = box.scrollTop + box.clientHeight >= box.scrollHeight - 24;
});

function drawDetail(game) {
  const detail = document.getElementById("game-detail");
  detail.hidden = false;
  const old = document.getElementById("eval-graph");
  const graph = evalGraph(game);
  if (old) old.replaceWith(graph); else detail.insertBefore(graph, detail.querySelector(".moves-box"));
  const scroller = document.querySelector("#game-detail .moves-box");
  const list = document.getElementById("moves");
  list.replaceChildren();
  const blackFirst = game.start_fen.split(" ")[1] === "b";
  const fullmove = Number(game.start_fen.split(" ")[5] || 1);
  const cells = (tr, mv, ply) => {
    if (!mv) {
      tr.appendChild(el("td", "san", ply === 0 ? "…" : ""));
      tr.appendChild(el("td", "eval"));
      tr.appendChild(el("td", "time"));
      return;
    }
    tr.appendChild(el("td", "san", mv.san));
    const ev = el("td", "eval", evalText(mv, ply).replace(/\/\d+$/, ""));
    if (mv.depth) ev.title = `depth ${mv.depth}`;
    tr.appendChild(ev);
    tr.appendChild(el("td", "time", emtText(mv.emt_ms)));
  };
  for (let i = 0; i < game.moves.length; i += 1) {
    const ply = i + (blackFirst ? 1 : 0);
    if (ply % 2 === 1 && i > 0) continue;
    const tr = el("tr");
    tr.appendChild(el("td", "num", `${fullmove + Math.floor(ply / 2)}.`));
    const white = ply % 2 === 0 ? game.moves[i] : null;
    const black = ply % 2 === 0 ? game.moves[i + 1] : game.moves[i];
    cells(tr, white, 0);
    cells(tr, black, 1);
    list.appendChild(tr);
  }
  if (followMoves) scroller.scrollTop = scroller.scrollHeight;
  const last = game.moves[game.moves.length - 1];
  const analysis = document.getElementById("analysis");
  analysis.textContent = last && last.pv.length
    ? `${lastMoveText(game)} · pv ${last.pv.join(" ")}` : "";
}

// The finished games as a compact list, the latest first.
function drawFinished(done) {
  const box = document.getElementById("finished-box");
  box.hidden = single !== null || !done.length;
  const table = document.getElementById("finished");
  table.replaceChildren();
  for (const g of [...done].sort((a, b) => b.number - a.number)) {
    const tr = el("tr");
    tr.id = "finished-" + g.number;
    const link = el("a", null, `Game ${g.number}`);
    link.href = "/game/" + g.number;
    const first = el("td", "num");
    first.appendChild(link);
    tr.appendChild(first);
    tr.appendChild(el("td", "round", `round ${roundText(g)}`));
    tr.appendChild(el("td", "name", g.white));
    tr.appendChild(el("td", "result", g.result));
    tr.appendChild(el("td", "name", g.black));
    tr.appendChild(el("td", "reason", g.reason || ""));
    table.appendChild(tr);
  }
}

// Sizes the boards so that the games in progress fill the space they have: as many
// columns as make the boards largest within the window's width and height (on the
// page of every game, the top of what is below them kept in sight: the finished games,
// the standings).
function layout() {
  const box = document.getElementById("games");
  const boxes = box.querySelectorAll("article.game");
  if (!boxes.length) return;
  const first = boxes[0];
  const board = first.querySelector(".board");
  const chrome = first.offsetHeight - board.offsetHeight;
  const side = first.offsetWidth - board.offsetWidth;
  const gap = 16;
  const beside = single !== null || document.body.classList.contains("one");
  const below = beside ? 0 : Math.min(document.querySelector("aside").offsetHeight, 200) + gap;
  const width = box.clientWidth;
  const height = window.innerHeight - box.getBoundingClientRect().top - window.scrollY - below - gap;
  let best = 0, columns = 1;
  for (let c = 1; c <= boxes.length; c += 1) {
    const rows = Math.ceil(boxes.length / c);
    const size = Math.min((width - gap * (c - 1)) / c - side, (height - gap * (rows - 1)) / rows - chrome);
    if (size > best) { best = size; columns = c; }
  }
  // Too many games for the window (a phone, a long list): boards of a readable size
  // across the width, and the page scrolls.
  const READABLE = 160;
  if (best < READABLE) {
    columns = Math.max(1, Math.min(boxes.length, Math.floor((width + gap) / (240 + side + gap))));
    best = (width - gap * (columns - 1)) / columns - side;
  }
  box.style.setProperty("--columns", String(columns));
  box.style.setProperty("--board", `${Math.max(120, Math.floor(best))}px`);
}

function draw() {
  const box = document.getElementById("games");
  const all = [...games.values()];
  const shown = single === null ? all.filter((g) => !g.result) : all.filter((g) => g.number === single);
  box.replaceChildren(...shown.map(drawGame));
  // A single game in progress is drawn as /game/N draws its game, the rest beside it.
  document.body.classList.toggle("one", single === null && shown.length === 1);
  if (!shown.length) {
    const done = all.some((g) => g.result);
    box.appendChild(el("p", "quiet", single !== null ? `Game ${single} is not under way.`
      : done ? "No game is under way: the round's results are below." : "No game is under way yet."));
  }
  drawFinished(all.filter((g) => g.result));
  if (single !== null && shown.length) drawDetail(shown[0]);
  layout();
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
  const stale = Date.now() - lastHeard > STALE_AFTER_MS;
  // A stale page knows the clocks only as of the referee's last word: they stop there.
  const now = stale ? lastHeard : Date.now();
  for (const game of games.values()) {
    const box = document.getElementById("game-" + game.number);
    if (!box) continue;
    for (const clock of box.querySelectorAll(".clock")) {
      const side = clock.dataset.side;
      const ms = left(game, side, now);
      clock.textContent = clockText(ms);
      clock.classList.toggle("frozen", stale && game.running === side);
      clock.classList.toggle("running", game.running === side);
      clock.classList.toggle("low", game.running === side && ms !== null && ms < 10000);
    }
  }
  const feed = document.getElementById("feed");
  feed.className = "feed " + (stale ? "stale" : "live");
  feed.textContent = stale
    ? `feed stale since ${timeOfDay(lastHeard)}: nothing from the referee for ${Math.round((Date.now() - lastHeard) / 1000)} s; clocks stopped there`
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
window.addEventListener("resize", () => {
  layout();
  const box = document.querySelector("#game-detail .moves-box");
  if (followMoves) box.scrollTop = box.scrollHeight;
});
