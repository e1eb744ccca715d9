#!/usr/bin/env python3
"""What the journals of an `argus serve` event say about time forfeits (issue 9's load
test, scripts/serve-load.sh): whether any was argus's own delay.

    scripts/serve-load-check.py OUT_DIR [THRESHOLD_MS] [LAST_N]

For every game journal (OUT_DIR/games/*.jsonl):
- the referee's turnaround per ply: from a reply's `rx` stamp to the `drained` of the
  next `respond` to the opponent. It is charged to nobody (the mover's clock stopped at
  the rx stamp, the opponent's starts at the drain), but it shows how busy the referee
  was;
- each player's charged think per move: from the `drained` of its `respond` to its
  reply's `rx` stamp (the stamp is taken by the thread that reads the socket);
- for each time forfeit, the loser's last LAST_N moves: their charged times, and
  whether the referee was slow around them (a turnaround over THRESHOLD_MS just before
  one of them, or a drain that came more than THRESHOLD_MS after its respond's rx),
  and whether a reply stamped before the flag fell was handled after it (a `rx` after
  the `timer` that ended the game, stamped earlier: a flag argus caused).
"""
import glob
import json
import os
import sys


def pct(values, p):
    if not values:
        return 0
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def game(path):
    """Turnarounds (µs), and for a time forfeit a dict about the loser."""
    queued = {"a": [], "b": []}  # lines sent, not yet drained, per port
    respond_at = {"a": None, "b": None}  # when the port's last respond drained
    pending = None  # (port, t) of the last reply, until the opponent's respond drains
    thinks = {"a": [], "b": []}  # (charged µs, turnaround before that move µs)
    turn_before = {"a": 0, "b": 0}
    turnarounds = []
    timer_t = None
    late_after_flag = False
    over = None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            kind = ev.get("ev")
            if kind == "tx":
                queued[ev["port"]].append(ev["text"])
            elif kind == "drained":
                port = ev["port"]
                text = queued[port].pop(0) if queued[port] else ""
                if "refcom respond" in text:
                    respond_at[port] = ev["t"]
                    if pending and pending[0] != port:
                        turn = ev["t"] - pending[1]
                        turnarounds.append(turn)
                        turn_before[port] = turn
                        pending = None
            elif kind == "rx":
                port = ev["port"]
                if over is not None and timer_t is not None and ev["t"] < timer_t:
                    late_after_flag = True
                if "refreq reply" in ev.get("text", "") and respond_at[port] is not None:
                    thinks[port].append((ev["t"] - respond_at[port], turn_before[port]))
                    respond_at[port] = None
                    pending = (port, ev["t"])
            elif kind == "timer":
                timer_t = ev["t"]
            elif kind == "game_over":
                over = ev
    forfeit = None
    if over and over.get("termination") == "time forfeit":
        loser = "a" if over["result"] == "0-1" else "b"
        forfeit = {"loser": loser, "thinks": thinks[loser], "late_after_flag": late_after_flag}
    all_thinks = [t for port in thinks.values() for t, _ in port]
    return turnarounds, forfeit, all_thinks


def main():
    out = sys.argv[1]
    threshold = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    last_n = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    limit = threshold * 1000
    turnarounds, forfeits, thinks = [], [], []
    for path in sorted(glob.glob(os.path.join(out, "games", "*.jsonl"))):
        turns, forfeit, charged = game(path)
        turnarounds += turns
        thinks += charged
        if forfeit:
            forfeits.append(forfeit)
    print(
        f"referee turnaround (rx of a reply to the drain of the next respond), "
        f"{len(turnarounds)} plies: p50 {pct(turnarounds, 50)} µs, "
        f"p99 {pct(turnarounds, 99)} µs, max {max(turnarounds, default=0)} µs"
    )
    print(
        f"players' charged think (drain of respond to rx of reply): "
        f"p50 {pct(thinks, 50)} µs, p99 {pct(thinks, 99)} µs, max {max(thinks, default=0)} µs"
    )
    slow = 0
    flagged = 0
    charged_last = []
    for f in forfeits:
        last = f["thinks"][-last_n:]
        charged_last += [t for t, _ in last]
        if any(turn > limit for _, turn in last):
            slow += 1
        if f["late_after_flag"]:
            flagged += 1
    print(
        f"time forfeits: {len(forfeits)}; the losers' last {last_n} moves charged "
        f"p50 {pct(charged_last, 50)} µs, max {max(charged_last, default=0)} µs; "
        f"with a referee turnaround over {threshold:g} ms before one of them: {slow}; "
        f"with a reply stamped before the flag but handled after it: {flagged}"
    )


main()
