"""Game reports a person would rather look at than read.

    mancala analyse RECORD --html game.html [--png graph.png]

`build(text, rows)` turns a record and its analysis (game_analysis.analyse_record:
every move graded as the board's coach grades it, with the position's value) into the
report's data; `graph_svg()` draws the evaluation over the game as one standalone
SVG (the project draws it: no plotting library, presentation attributes only, so
the same drawing goes into the HTML and, through CairoSVG, into the PNG);
`html()` writes one self-contained file: inline CSS, inline SVG, a little inline
JavaScript for the board at any move.  Nothing is loaded at view time.
"""

import html as _html
import json

GRADES = ("best", "excellent", "good", "inaccuracy", "mistake", "blunder")
# the board's own grade colours (mancala.app.GRADE_COLOURS): the same light as on the board
GRADE_COLOURS = {"best": "#00ff6e", "excellent": "#00c8ff", "good": "#ffffff",
                 "inaccuracy": "#c8ff00", "mistake": "#ff8c00", "blunder": "#ff0000"}
SOUTH_COLOUR = "#008cff"  # mancala.hw.pixels.SOUTH
NORTH_COLOUR = "#ff00c8"  # mancala.hw.pixels.NORTH
BACKGROUND = "#1f1a16"
CRITICAL_GRADES = ("mistake", "blunder")
MAX_CRITICAL = 5
SWING = 5  # stones the mover's evaluation must fall for "the lead passes" to count


# -- the data -------------------------------------------------------------------------

def build(text, rows, nodes=None, note=None):
    """The report's data: positions at every ply, evaluations, accuracy, critical moments.
    `nodes`: the analysis's budget a move; `note`: what it says of that budget against
    the board's coach (game_analysis.budget_note; this module draws what it is given)."""
    from mancala.game import END_AGREEMENT, END_REPETITION
    from mancala.notation import format_record, parse_record
    from mancala.rules import N_STORE, S_STORE

    game = parse_record(text)
    n = game.ply
    if len(rows) != n:
        raise ValueError("the analysis has %d moves, the record %d" % (len(rows), n))
    positions = [list(game.position_at(i)[:15]) for i in range(n + 1)]
    evals = [round(r["eval"], 2) for r in rows]
    last = game.pos
    if game.over:
        final = last[S_STORE] - last[N_STORE]  # the rules' end (sweep) already applied
    else:
        final = _search_eval(game, nodes)
    evals.append(round(final, 2))
    moves = []
    for r in rows:
        m = dict(r)
        m["eval_after"] = evals[r["ply"]]
        moves.append(m)
    result = None
    if game.over:
        w = game.winner()
        why = {END_AGREEMENT: "by agreement", END_REPETITION: "by repetition"}.get(game.end, "")
        result = {"south": last[S_STORE], "north": last[N_STORE],
                  "winner": ("South", "North", "draw")[w if w >= 0 else 2], "why": why}
    return {"variant": game.rules.id, "record": format_record(game), "nodes": nodes,
            "budget": note or ("graded with %d nodes a move" % nodes if nodes else
                               "graded by the engine"),
            "positions": positions, "evals": evals, "moves": moves, "result": result,
            "accuracy": accuracy(moves), "critical": critical(moves, evals)}


def _search_eval(game, nodes):
    from mancala import engine as eng_mod
    from mancala.rules import SIDE

    e = eng_mod.Engine(game.rules, tt_bits=12)  # (the board's table size, as the analysis)
    e.search(game.pos, nodes=nodes or eng_mod.GRADE_NODES)
    return (1 - 2 * game.pos[SIDE]) * e.qscore / eng_mod.SCALE


def accuracy(moves):
    """Per side: moves, share of best moves, stones lost per move, moves per grade."""
    out = {}
    for side in ("S", "N"):
        mine = [m for m in moves if m["side"] == side]
        k = len(mine)
        out[side] = {
            "moves": k,
            "best_share": sum(1 for m in mine if m["grade"] == "best") / k if k else None,
            "loss_per_move": sum(m["loss"] for m in mine) / k if k else None,
            "lost": sum(m["loss"] for m in mine),
            "grades": {g: sum(1 for m in mine if m["grade"] == g) for g in GRADES},
        }
    return out


def critical(moves, evals):
    """The moments that decided the game: the costliest mistakes and blunders, and
    the moves that handed the lead to the other side (ply order)."""
    picked = {}
    worst = sorted((m for m in moves if m["grade"] in CRITICAL_GRADES),
                   key=lambda m: (-m["loss"], m["ply"]))[:MAX_CRITICAL]
    for m in worst:
        best = " (best: %s%d)" % (m["side"], m["best"]) if m["best"] else ""
        picked[m["ply"]] = "%s: %s%d loses %d stone%s%s" % (
            m["grade"], m["side"], m["move"], m["loss"], "" if m["loss"] == 1 else "s", best)
    for m in moves:
        before, after = evals[m["ply"] - 1], evals[m["ply"]]
        mover = 1 if m["side"] == "S" else -1
        # (a swing of a few stones between plies is the search's horizon, not the game)
        if before * mover > 0.5 and after * mover < -0.5 and (before - after) * mover >= SWING:
            why = "the lead passes to %s" % ("North" if m["side"] == "S" else "South")
            picked[m["ply"]] = picked[m["ply"]] + "; " + why if m["ply"] in picked else \
                "%s%d: %s" % (m["side"], m["move"], why)
    return [{"ply": p, "text": picked[p]} for p in sorted(picked)]


# -- the graph ---------------------------------------------------------------------------

def _nice_limit(v):
    for lim in (4, 6, 8, 10, 12, 16, 20, 25, 30, 40, 50, 60, 80, 100):
        if v <= lim:
            return lim
    return int(v) + 1


def graph_svg(data, width=900, height=330):
    """The evaluation over the game: stones of advantage for South at every ply (blue
    above the line: South ahead, magenta below: North), one marker a move in its grade's
    colour, sized by the stones it lost, and the losses as bars underneath."""
    evals = data["evals"]
    moves = data["moves"]
    n = len(evals) - 1
    left, right, top = 56, 16, 34
    strip = 54  # the loss bars
    plot_h = height - top - strip - 44
    x0, x1 = left, width - right
    lim = _nice_limit(max([abs(e) for e in evals] + [1]))

    def X(ply):
        return x0 + (x1 - x0) * (ply / n if n else 0)

    def Y(v):
        return top + plot_h / 2 - (v / lim) * (plot_h / 2)

    zero = Y(0)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="DejaVu Sans, Verdana, sans-serif" id="graph">' % (width, height, width, height),
           '<rect width="100%%" height="100%%" fill="%s"/>' % BACKGROUND,
           '<defs><clipPath id="above"><rect x="0" y="0" width="%d" height="%.1f"/></clipPath>'
           '<clipPath id="below"><rect x="0" y="%.1f" width="%d" height="%d"/></clipPath></defs>'
           % (width, zero, zero, width, height)]
    out.append('<text x="%d" y="20" fill="#e8e0d6" font-size="15">Evaluation for South, in stones'
               ' (engine search%s)</text>' % (left, ", %d nodes a move" % data["nodes"]
                                               if data.get("nodes") else ""))
    # grid and axes
    for k in (-1, -0.5, 0, 0.5, 1):
        v = k * lim
        y = Y(v)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="%s"/>'
                   % (x0, y, x1, y, "#8a7d70" if k == 0 else "#3a3029", 1.5 if k == 0 else 1))
        label = "0" if k == 0 else ("%+g" % v).replace("-", "\u2212")
        out.append('<text x="%d" y="%.1f" fill="#b9ab9c" font-size="12" text-anchor="end">%s</text>'
                   % (x0 - 6, y + 4, label))
    out.append('<text x="%d" y="%.1f" fill="%s" font-size="12">South ahead</text>'
               % (x0 + 6, top + 14, SOUTH_COLOUR))
    out.append('<text x="%d" y="%.1f" fill="%s" font-size="12">North ahead</text>'
               % (x0 + 6, top + plot_h - 6, NORTH_COLOUR))
    step = 1 if n <= 20 else 5 if n <= 100 else 10
    for p in range(0, n + 1, step):
        out.append('<text x="%.1f" y="%.1f" fill="#b9ab9c" font-size="11" text-anchor="middle">%d'
                   '</text>' % (X(p), top + plot_h + strip + 18, p))
    out.append('<text x="%.1f" y="%d" fill="#b9ab9c" font-size="12" text-anchor="middle">move'
               '</text>' % ((x0 + x1) / 2, height - 6))
    # the area between the curve and zero, coloured by who is ahead
    pts = " ".join("%.1f,%.1f" % (X(i), Y(e)) for i, e in enumerate(evals))
    area = "%.1f,%.1f %s %.1f,%.1f" % (X(0), zero, pts, X(n), zero)
    out.append('<polygon points="%s" fill="%s" fill-opacity="0.35" clip-path="url(#above)"/>'
               % (area, SOUTH_COLOUR))
    out.append('<polygon points="%s" fill="%s" fill-opacity="0.35" clip-path="url(#below)"/>'
               % (area, NORTH_COLOUR))
    out.append('<polyline points="%s" fill="none" stroke="#f3ebe2" stroke-width="2"/>' % pts)
    # a column a ply under the markers, to click anywhere near a move
    half = (x1 - x0) / n / 2 if n else 10
    for p in range(n + 1):
        out.append('<rect class="col" data-ply="%d" x="%.1f" y="%d" width="%.1f" height="%.1f" '
                   'fill="#fff" fill-opacity="0"/>' % (p, X(p) - half, top, 2 * half, plot_h + strip))
    # the selected ply (moved by the page's script)
    out.append('<line id="cursor" x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#ffd08a" '
               'stroke-width="1.5" stroke-dasharray="4 3"/>' % (X(0), top, X(0), top + plot_h + strip))
    # losses as bars, and one marker a move
    base = top + plot_h + strip - 4
    worst = max([m["loss"] for m in moves] + [4])
    for m in moves:
        p = m["ply"]
        col = GRADE_COLOURS.get(m["grade"], "#999")
        if m["loss"]:
            h = (strip - 12) * min(1.0, m["loss"] / worst)
            out.append('<rect class="loss" data-ply="%d" x="%.1f" y="%.1f" width="%.1f" height="%.1f"'
                       ' fill="%s"/>' % (p, X(p) - 2.5, base - h, 5, h, col))
        r = 3.5 + min(m["loss"], 10) * 0.5
        out.append('<circle class="mv" data-ply="%d" data-grade="%s" cx="%.1f" cy="%.1f" r="%.1f" '
                   'fill="%s" stroke="#000" stroke-width="1"><title>%d. %s%d %s, %s%s</title></circle>'
                   % (p, m["grade"], X(p), Y(m["eval_after"]), r, col, p, m["side"], m["move"],
                      m["grade"], "lost %d" % m["loss"] if m["loss"] else "no loss",
                      ", best %s%d" % (m["side"], m["best"]) if m["best"] and m["loss"] else ""))
    out.append('<text x="%d" y="%.1f" fill="#b9ab9c" font-size="11" text-anchor="end">lost</text>'
               % (x0 - 6, base - 4))
    out.append("</svg>")
    return "\n".join(out)


def png(data, width=900, height=330, scale=2):
    """The graph alone as PNG bytes (CairoSVG renders the same SVG)."""
    try:
        import cairosvg
    except (ImportError, OSError) as e:  # OSError: the cairo library itself is missing
        raise RuntimeError("--png needs CairoSVG and the cairo library (pip install cairosvg; "
                           "apt-get install libcairo2): %s" % e) from None
    return cairosvg.svg2png(bytestring=graph_svg(data, width, height).encode(),
                            output_width=width * scale, output_height=height * scale)


# -- the page ------------------------------------------------------------------------------

def _pct(v):
    return "&ndash;" if v is None else "%d%%" % round(100 * v)


def _per_move(v):
    return "&ndash;" if v is None else "%.2f" % v


def html(data):
    e = _html.escape
    res = data["result"]
    if res:
        outcome = "%s %d &ndash; %d North: %s%s" % (
            "South", res["south"], res["north"],
            "a draw" if res["winner"] == "draw" else res["winner"] + " wins",
            " (%s)" % res["why"] if res["why"] else "")
    else:
        outcome = "not finished"
    acc = data["accuracy"]
    acc_rows = []
    for side, name in (("S", "South"), ("N", "North")):
        a = acc[side]
        grades = " ".join('<span class="chip" style="background:%s">%d</span>' % (GRADE_COLOURS[g], a["grades"][g])
                          for g in GRADES)
        acc_rows.append('<tr><th class="%s">%s</th><td>%d</td><td class="acc">%s</td><td>%s</td>'
                        '<td>%d</td><td>%s</td></tr>' % (
                            name.lower(), name, a["moves"], _pct(a["best_share"]),
                            _per_move(a["loss_per_move"]), a["lost"], grades))
    crit = "".join('<li><a href="#" data-ply="%d">move %d</a>: %s</li>' % (c["ply"], c["ply"], e(c["text"]))
                   for c in data["critical"]) or "<li>none: no mistake changed the game</li>"
    move_rows = []
    for m in data["moves"]:
        move_rows.append(
            '<tr data-ply="%d"><td>%d</td><td class="%s">%s%d</td><td>%s</td>'
            '<td><span class="chip" style="background:%s"></span>%s</td><td>%s</td><td>%+.1f</td></tr>'
            % (m["ply"], m["ply"], "south" if m["side"] == "S" else "north", m["side"], m["move"],
               "%s%d" % (m["side"], m["best"]) if m["best"] else "&ndash;",
               GRADE_COLOURS[m["grade"]], m["grade"], m["loss"] or "", m["eval_after"]))
    legend = " ".join('<span class="chip" style="background:%s"></span>%s' % (GRADE_COLOURS[g], g)
                      for g in GRADES)
    payload = json.dumps({"positions": data["positions"], "evals": data["evals"],
                          "moves": data["moves"], "variant": data["variant"]},
                         separators=(",", ":")).replace("</", "<\\/")
    return PAGE % {
        "title": e("Mancala report: %s" % data["variant"]), "variant": e(data["variant"]),
        "record": e(data["record"]), "outcome": outcome, "moves": len(data["moves"]),
        "graph": graph_svg(data), "legend": legend, "acc_rows": "\n".join(acc_rows),
        "critical": crit, "move_rows": "\n".join(move_rows), "data": payload,
        "south": SOUTH_COLOUR, "north": NORTH_COLOUR, "bg": BACKGROUND,
        "nodes": e(data["budget"]),
    }


def write(text, rows, html_path=None, png_path=None, nodes=None, note=None):
    """Write the report files asked for; returns the report data."""
    data = build(text, rows, nodes, note)
    if png_path:
        blob = png(data)
        with open(png_path, "wb") as f:
            f.write(blob)
    if html_path:
        with open(html_path, "w", encoding="utf-8") as f:
            f.write(html(data))
    return data


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%(title)s</title>
<style>
body { margin: 0; background: #15110e; color: #e8e0d6; font: 15px/1.45 "DejaVu Sans", system-ui, sans-serif; }
main { max-width: 960px; margin: 0 auto; padding: 14px 16px 40px; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 17px; margin: 22px 0 8px; }
code { color: #cfe3ff; word-break: break-all; }
.meta { color: #cbbfb2; }
#graph { width: 100%%; height: auto; display: block; border-radius: 8px; cursor: pointer; }
.legend { font-size: 13px; color: #cbbfb2; margin: 6px 0; }
.chip { display: inline-block; min-width: 12px; height: 12px; border-radius: 6px; margin: 0 4px 0 10px;
        vertical-align: -1px; color: #000; font-size: 10px; line-height: 12px; text-align: center; padding: 0 2px; }
td .chip { margin-left: 0; }
.south { color: %(south)s; } .north { color: %(north)s; }
table { border-collapse: collapse; width: 100%%; }
th, td { padding: 3px 8px; text-align: left; border-bottom: 1px solid #2e2620; }
#moves tbody tr { cursor: pointer; } #moves tbody tr:hover { background: #2a221c; }
#moves tr.sel { background: #3a2e22; }
.view { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
#board { width: 560px; max-width: 100%%; height: auto; background: #553720; border-radius: 22px; }
#about { flex: 1; min-width: 240px; }
button { background: #3a3029; color: #f3ebe2; border: 1px solid #5a4a3d; border-radius: 6px; padding: 5px 12px;
         font: inherit; cursor: pointer; }
.scroll { max-height: 420px; overflow: auto; }
a { color: #ffd08a; }
</style></head>
<body><main>
<h1>Mancala game report</h1>
<div class="meta">%(variant)s &middot; %(moves)d moves &middot; %(outcome)s &middot; the board's
engine %(nodes)s</div>
<div class="meta">record: <code id="record">%(record)s</code></div>

<h2>The game at a glance</h2>
%(graph)s
<div class="legend">markers: each move's grade%(legend)s &middot; size and bars: stones lost against the best move
&middot; click the graph or a move for the board</div>

<h2>The board</h2>
<div class="view">
  <svg id="board" viewBox="0 0 560 250" aria-label="the board at the selected move"></svg>
  <div id="about">
    <div><button id="prev" title="previous move (left arrow)">&larr;</button>
         <button id="next" title="next move (right arrow)">&rarr;</button>
         <b id="plyname"></b></div>
    <p id="movetext"></p>
  </div>
</div>

<h2>Accuracy</h2>
<table id="accuracy"><thead><tr><th></th><th>moves</th><th>best moves</th><th>stones lost per move</th>
<th>stones lost</th><th>grades (best &rarr; blunder)</th></tr></thead>
<tbody>
%(acc_rows)s
</tbody></table>

<h2>Critical moments</h2>
<ul id="critical">%(critical)s</ul>

<h2>Moves</h2>
<div class="scroll"><table id="moves"><thead><tr><th>#</th><th>move</th><th>best</th><th>grade</th>
<th>lost</th><th>after (South)</th></tr></thead>
<tbody>
%(move_rows)s
</tbody></table></div>
</main>
<script>
"use strict";
const DATA = %(data)s;
const NS = "http://www.w3.org/2000/svg";
const GRADE = %(grade_js)s;
const board = document.getElementById("board");
function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  parent.appendChild(e);
  return e;
}
function centre(i) {
  if (i === 6) return [520, 125];
  if (i === 13) return [40, 125];
  if (i < 6) return [105 + i * 70, 185];
  return [105 + (12 - i) * 70, 65];
}
function stones(parent, cx, cy, n, r) {
  // up to 24 stones drawn in a small spiral, the count in the middle
  const k = Math.min(n, 24);
  for (let s = 0; s < k; s++) {
    const a = s * 2.4, d = 4.2 * Math.sqrt(s + 0.5);
    el("circle", { cx: cx + d * Math.cos(a), cy: cy + d * Math.sin(a), r: 3.4, fill: "#cfc2ae",
                   stroke: "#6b5a48", "stroke-width": 0.8 }, parent);
  }
}
function draw(ply) {
  board.replaceChildren();
  const pos = DATA.positions[ply];
  const move = ply > 0 ? DATA.moves[ply - 1] : null;
  const next = ply < DATA.moves.length ? DATA.moves[ply] : null;
  for (let i = 0; i < 14; i++) {
    const [cx, cy] = centre(i);
    const store = i === 6 || i === 13;
    const g = el("g", { class: "pit", "data-pit": i, "data-count": pos[i] }, board);
    if (store) el("rect", { x: cx - 26, y: cy - 95, width: 52, height: 190, rx: 26, fill: "#1c120a" }, g);
    else el("circle", { cx, cy, r: 29, fill: "#1c120a" }, g);
    if (move && !store && i === (move.side === "S" ? 0 : 7) + move.move - 1) {
      el("circle", { cx, cy, r: 32, fill: "none", stroke: GRADE[move.grade], "stroke-width": 4 }, g);
    }
    if (next && next.best && !store && i === (next.side === "S" ? 0 : 7) + next.best - 1) {
      el("circle", { cx, cy, r: 33, fill: "none", stroke: "#00ff6e", "stroke-width": 2,
                     "stroke-dasharray": "5 4" }, g);
    }
    stones(g, cx, cy, pos[i], store ? 20 : 12);
    const t = el("text", { x: cx, y: store ? cy + 118 : (i < 6 ? cy + 48 : cy - 38), fill: "#fff",
                           "font-size": 17, "font-weight": 600, "text-anchor": "middle",
                           class: "count" }, g);
    t.textContent = pos[i];
  }
  const side = pos[14] ? "North" : "South";
  document.getElementById("plyname").textContent = ply === 0 ? "start" : "after move " + ply;
  let text = "";
  if (move) text += move.side + move.move + ": " + move.grade + (move.loss ? ", " + move.loss +
      " stone" + (move.loss === 1 ? "" : "s") + " lost" + (move.best ? " (best " + move.side + move.best + ")" : "") : "") +
      (move.threat ? "; the threat: " + (move.side === "S" ? "N" : "S") + move.threat : "") + ". ";
  text += "Evaluation " + (DATA.evals[ply] >= 0 ? "+" : "") + DATA.evals[ply].toFixed(1) + " for South. ";
  text += next ? side + " to move; played " + next.side + next.move + (next.best ? ", best " + next.side + next.best : "") + "."
               : "End of the record.";
  document.getElementById("movetext").textContent = text;
  const cur = document.getElementById("cursor");
  const col = document.querySelector('#graph .col[data-ply="' + ply + '"]');
  if (cur && col) {
    const x = Number(col.getAttribute("x")) + Number(col.getAttribute("width")) / 2;
    cur.setAttribute("x1", x); cur.setAttribute("x2", x);
  }
  for (const tr of document.querySelectorAll("#moves tbody tr"))
    tr.classList.toggle("sel", Number(tr.dataset.ply) === ply);
  board.dataset.ply = ply;
  current = ply;
}
let current = 0;
function pick(e) {
  const t = e.target.closest("[data-ply]");
  if (!t) return;
  e.preventDefault();
  draw(Number(t.dataset.ply));
}
document.getElementById("graph").addEventListener("click", pick);
document.getElementById("moves").addEventListener("click", pick);
document.getElementById("critical").addEventListener("click", pick);
document.getElementById("prev").addEventListener("click", () => draw(Math.max(0, current - 1)));
document.getElementById("next").addEventListener("click", () => draw(Math.min(DATA.moves.length, current + 1)));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowLeft") draw(Math.max(0, current - 1));
  if (e.key === "ArrowRight") draw(Math.min(DATA.moves.length, current + 1));
});
draw(0);
</script>
</body></html>
"""
PAGE = PAGE.replace("%(grade_js)s", json.dumps(GRADE_COLOURS).replace("%", "%%"))
