"""One self-contained assessment page per topic: the pool sheet's rows as cards, labelled by buttons or keys.

Why a page and not only a sheet: an assessor labels hundreds of items; a spreadsheet invites sorting (and then
labels meet the wrong rows) and shows passage texts badly. The page opens from disk with no network (inline
style and script, the rows embedded as JSON), shows the topic and each item with its text where the runs carry
it, the task's label scale as buttons with a key each, the progress, and saves the labelled rows as a TSV sheet
with exactly the pool sheet's columns, keyed by (topic, item) like every sheet (campaign/sheet.py: escaped, and a
field a spreadsheet would run as a formula quoted, as pool.tsv is). Labels are kept in the browser's localStorage
under the page's pool hash, so closing the page loses nothing. The rows are embedded as JSON escaped for the HTML
tokenizer (campaign/safe_output.py): an item `<!--<script>` is text on a card, not the end of the page's data.
"""
import hashlib
import html
import json
import os
import re
from typing import Dict, List, Sequence

from .safe_output import json_for_script
from .sheet import scale_of

PAGE_STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#f6f6f4;color:#222}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:.6em 1em;z-index:1}
h1{font-size:1.2em;margin:0 0 .3em 0}.topic-text{margin:.2em 0 .5em 0;font-size:1.05em}
.bar{display:flex;gap:1em;align-items:center;flex-wrap:wrap}
progress{width:16em;height:1em}button{font-size:.95em;padding:.3em .7em;cursor:pointer}
.help{color:#555;font-size:.9em}main{padding:1em;max-width:60em}
.card{background:#fff;border:2px solid #ddd;border-radius:6px;padding:.6em .8em;margin:0 0 .8em 0}
.card.current{border-color:#1f6feb;box-shadow:0 0 0 3px #cfe0ff}.card.done{background:#f2fbf2}
.key{font-family:monospace;font-size:.85em;color:#555;word-break:break-all}
.text{white-space:pre-wrap;margin:.4em 0}.passage{white-space:pre-wrap;color:#444;border-left:3px solid #bbb;
padding-left:.6em;margin:.4em 0;font-size:.92em}.meta{color:#666;font-size:.85em}
.labels button{margin-right:.4em}.labels button.on{background:#1f6feb;color:#fff;border-color:#1f6feb}
kbd{border:1px solid #aaa;border-radius:3px;padding:0 .3em;font-size:.85em;background:#fafafa;color:#222}
"""

PAGE_SCRIPT = r"""
(function(){
var P=JSON.parse(document.getElementById('pool-data').textContent);
var store='runscore-assess-'+P.hash, saved={};
try{saved=JSON.parse(localStorage.getItem(store)||'{}');}catch(e){saved={};}
var rows=P.rows, cur=0, main=document.getElementById('items');
function esc(s){return String(s).replace(/\\/g,'\\\\').replace(/\t/g,'\\t').replace(/\n/g,'\\n').replace(/\r/g,'\\r');}
function cell(s){s=esc(s); return /^[=+\-@\t\r\n\u0000'"]/.test(s)?"'"+s:s;}
function keyOf(r){return r.topic+'\u0000'+r.item;}
rows.forEach(function(r){var k=keyOf(r); if(saved[k]!==undefined){r.label=saved[k];}});
function scaleOf(r){return P.scales[r.unit||'']||P.scales[''];}
function render(){
  main.innerHTML='';
  rows.forEach(function(r,i){
    var c=document.createElement('div'); c.className='card'+(i===cur?' current':'')+(r.label?' done':'');
    c.id='item-'+i; c.setAttribute('data-item',r.item);
    var h='<div class="key">'+(i+1)+'. '+html(r.item)+'</div>';
    if(r.unit){h+='<div class="meta">'+html(r.unit)+'</div>';}
    if(r.text){h+='<div class="text">'+html(r.text)+'</div>';}
    if(r.passage){h+='<div class="passage">cited passage: '+html(r.passage)+'</div>';}
    h+='<div class="meta">retrieved by '+html(r.runs)+' run(s)'+(r.best_rank?', best rank '+html(r.best_rank):'')+'</div>';
    h+='<div class="labels">';
    scaleOf(r).forEach(function(s){h+='<button data-label="'+html(s[0])+'" class="'+(r.label===s[0]?'on':'')+
      '" title="key '+html(s[1])+'">'+html(s[0])+' '+html(s[2])+' <kbd>'+html(s[1])+'</kbd></button>';});
    h+='</div>'; c.innerHTML=h;
    c.querySelectorAll('button').forEach(function(b){b.onclick=function(){cur=i;setLabel(b.getAttribute('data-label'));};});
    c.onclick=function(e){if(e.target.tagName!=='BUTTON'){cur=i;render();}};
    main.appendChild(c);
  });
  var done=rows.filter(function(r){return r.label;}).length;
  document.getElementById('progress').value=done; document.getElementById('progress').max=rows.length;
  document.getElementById('count').textContent=done+' / '+rows.length+' labelled';
}
function html(s){return String(s).replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/>/g,'&gt;').replace(/"/g,'&quot;');}
function setLabel(l){
  var r=rows[cur]; r.label=l; saved[keyOf(r)]=l;
  try{localStorage.setItem(store,JSON.stringify(saved));}catch(e){}
  if(cur<rows.length-1){cur++;} render(); scrollTo();
}
function scrollTo(){var e=document.getElementById('item-'+cur); if(e&&e.scrollIntoView){e.scrollIntoView({block:'center'});}}
document.addEventListener('keydown',function(e){
  if(e.ctrlKey||e.metaKey||e.altKey){return;}
  var k=e.key;
  if(k==='ArrowDown'||k==='j'){cur=Math.min(rows.length-1,cur+1);render();scrollTo();e.preventDefault();return;}
  if(k==='ArrowUp'||k==='k'){cur=Math.max(0,cur-1);render();scrollTo();e.preventDefault();return;}
  var s=scaleOf(rows[cur]);
  for(var j=0;j<s.length;j++){if(s[j][1]===k.toLowerCase()){setLabel(s[j][0]);e.preventDefault();return;}}
});
function sheet(){
  var out=[P.columns.join('\t')];
  rows.forEach(function(r){out.push(P.columns.map(function(c){return cell(r[c]===undefined?'':r[c]);}).join('\t'));});
  return out.join('\n')+'\n';
}
window.runscoreSheet=sheet;
document.getElementById('save').onclick=function(){
  var a=document.createElement('a');
  a.href=URL.createObjectURL(new Blob([sheet()],{type:'text/tab-separated-values;charset=utf-8'}));
  a.download=P.file; document.body.appendChild(a); a.click(); a.remove();
};
render();
})();
"""


def page_name(topic: str) -> str:
    """A file name for a topic's page (ids are short; anything odd becomes _)."""
    return "topic-%s.html" % re.sub(r"[^A-Za-z0-9_.-]", "_", topic)


def write_pages(folder: str, task_id: str, columns: Sequence[str], rows: Sequence[Dict[str, str]],
                topic_texts: Dict[str, str]) -> List[str]:
    """One page per topic of the sheet rows; returns the paths written."""
    os.makedirs(folder, exist_ok=True)
    by_topic: Dict[str, List[Dict[str, str]]] = {}
    for row in rows:
        by_topic.setdefault(row["topic"], []).append(row)
    written = []
    for topic, topic_rows in by_topic.items():
        path = os.path.join(folder, page_name(topic))
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(page(task_id, topic, topic_texts.get(topic, ""), columns, topic_rows))
        written.append(path)
    return written


def page(task_id: str, topic: str, topic_text: str, columns: Sequence[str], rows: Sequence[Dict[str, str]]) -> str:
    units = sorted({r.get("unit", "") for r in rows})
    scales = {}
    for unit in units:
        scale = scale_of(task_id, {"unit": unit} if unit else None)
        scales[unit] = [[label, key, name] for label, key, name in zip(scale.labels, scale.keys, scale.names)]
    scales.setdefault("", scales[units[0]])
    body = [{c: r.get(c, "") for c in columns} for r in rows]
    digest = hashlib.sha1(json.dumps([task_id, topic, [(r["item"], r.get("text_sha1", "")) for r in rows]])
                          .encode("utf-8")).hexdigest()[:16]
    data = {"task": task_id, "topic": topic, "columns": list(columns), "rows": body, "scales": scales,
            "hash": digest, "file": "labels-%s.tsv" % re.sub(r"[^A-Za-z0-9_.-]", "_", topic)}
    embedded = json_for_script(data)        # no `</script>`, `<!--` or `<script` inside: they change the script state
    keys = "; ".join(("%s: " % u if u else "") + ", ".join("%s = %s" % (k, name) for _, k, name in scales[u])
                     for u in units)
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>Assess %(task)s topic %(topic)s</title><style>%(style)s</style></head>
<body><header><h1>%(task)s &middot; topic %(topic)s</h1>%(text)s
<div class="bar"><progress id="progress" value="0" max="%(n)d"></progress><span id="count"></span>
<button id="save">Save labelled sheet (TSV)</button></div>
<div class="help">Keys: %(keys)s; <kbd>j</kbd>/<kbd>&darr;</kbd> next, <kbd>k</kbd>/<kbd>&uarr;</kbd> previous.
A label moves to the next item. Labels are kept in this browser until you save the sheet.</div></header>
<main id="items"></main>
<script type="application/json" id="pool-data">%(data)s</script>
<script>%(script)s</script></body></html>
""" % {"task": html.escape(task_id), "topic": html.escape(topic), "style": PAGE_STYLE, "script": PAGE_SCRIPT,
       "text": '<div class="topic-text">%s</div>' % html.escape(topic_text) if topic_text else "",
       "n": len(rows), "keys": html.escape(keys), "data": embedded}
