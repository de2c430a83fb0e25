"""One self-contained assessment page per topic (or per batch of a topic): the topic, the documents, the label
scale, keyboard judging, and a sheet to save.

Why a page and not only a sheet: an assessor labels hundreds of items; a spreadsheet invites sorting (and then
labels meet the wrong rows) and shows documents badly. The page opens from disk with no network (inline style and
script, a Content-Security-Policy that allows nothing else, the data embedded as JSON) and shows:

* the topic as the campaign wrote it (title, description, narrative, ...; campaign/topics.py) and its query terms
  highlighted in every document (the assessor may edit the terms);
* each item's document: its title, a few facts and its text, from the collection or, where the run carries the
  judged text (R2C2), from the run (campaign/documents.py); an item whose document was not found says so;
* the task's label scale with the campaign's wording, each label a button and a key; `j`/`k` or the arrows move,
  `n` goes to the next unlabelled item, Backspace clears a label; the progress; labels kept in the browser's
  localStorage under the page's hash, so a reload or a closed tab loses nothing;
* **Save labelled sheet**: a TSV of (topic, item, [unit, text_sha1,] label) that `runscore judgements` reads. A
  run's text (R2C2) is shown, like a document, up to 20,000 characters: a participant's 100 MB passage cannot make
  an assessor's page unusable; the item is still judged by its full text's hash.

Blind: the assessor's page holds nothing about the runs (no run or team name, rank, rank sum or count of runs),
not even in its embedded data, so the order of the pool (random by default, or docid, or NTCIRPOOL's, said on the
page with what it tells) is the only trace of the systems
(TREC's assessors see no run data; specs/campaign.md 1.1). The organiser's own view (`--show-pool-stats`) adds
them, with a banner. Everything shown comes from participants or a crawl, so the page never parses it as markup:
the data is JSON escaped for the HTML tokenizer (campaign/safe_output.py) and the script builds text nodes only.
"""
import hashlib
import html
import json
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from ..tasks.base import Task
from .documents import MAX_KEPT_CHARS, MAX_SHOWN_CHARS, Document, shorten
from .safe_output import json_for_script

PAGE_STYLE = """
:root{--head:7em}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f4f1;color:#1d1d1d;
line-height:1.45}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #c8c8c8;padding:.45em 1em .5em;z-index:2;
box-shadow:0 1px 3px rgba(0,0,0,.06)}
.line{display:flex;gap:.6em 1em;align-items:center;flex-wrap:wrap}
h1{font-size:1.05em;margin:0;font-weight:600}
#topic-line{flex:1 1 20em;min-width:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;cursor:pointer;
color:#333}
#topic-line b{color:#000}
progress{width:11em;height:.9em}
button{font:inherit;font-size:.92em;padding:.3em .7em;cursor:pointer;border:1px solid #999;border-radius:4px;
background:#fafafa;color:#1d1d1d}
button:hover{background:#eef3ff}
#save{background:#1f6feb;color:#fff;border-color:#1f6feb}
.keys{color:#555;font-size:.85em;margin-top:.25em}
kbd{border:1px solid #aaa;border-bottom-width:2px;border-radius:3px;padding:0 .3em;font-size:.85em;background:#fafafa;
color:#222;font-family:ui-monospace,monospace}
#topic-pop{display:none;max-height:55vh;overflow:auto;border-top:1px solid #ddd;margin-top:.4em;padding-top:.3em}
#topic-pop.open{display:block}
main{padding:1em;max-width:62em;margin:0 auto}
.panel{background:#fff;border:1px solid #d6d6d6;border-radius:6px;padding:.7em 1em;margin:0 0 1em}
.panel h2{font-size:1.15em;margin:.1em 0 .4em}
.field{margin:.35em 0}.field .label,.section-label{font-size:.78em;text-transform:uppercase;letter-spacing:.04em;
color:#666;margin-top:.5em}
.field .value{white-space:pre-wrap}
.terms{display:flex;gap:.5em;align-items:center;flex-wrap:wrap;margin-top:.5em;font-size:.9em}
.terms input{flex:1 1 16em;font:inherit;padding:.2em .4em;border:1px solid #aaa;border-radius:4px;min-width:0}
table.scale{border-collapse:collapse;font-size:.92em;width:100%}
table.scale td{padding:.2em .5em .2em 0;vertical-align:top}
table.scale td.l{white-space:nowrap;font-weight:600}
.card{background:#fff;border:2px solid #ddd;border-radius:7px;padding:.7em 1em;margin:0 0 .9em;
scroll-margin-top:calc(var(--head) + .6em);content-visibility:auto;contain-intrinsic-size:auto 320px}
.card.current{border-color:#1f6feb;box-shadow:0 0 0 3px #cfe0ff}
.card.done{background:#f3faf3}
.card .head{display:flex;gap:.6em;align-items:baseline;flex-wrap:wrap;font-size:.85em;color:#555}
.card .num{font-weight:600;color:#333}
.card .key{font-family:ui-monospace,monospace;word-break:break-all}
.card .unit{background:#eee;border-radius:3px;padding:0 .4em}
.card .state{margin-left:auto;font-weight:600;color:#176f2c}
.card h2.title{font-size:1.08em;margin:.3em 0 .2em}
.facts{font-size:.84em;color:#555;display:flex;flex-wrap:wrap;gap:.1em 1em;word-break:break-word}
.fact-label{color:#888}
.text,.passage-text{margin:.3em 0;word-break:break-word}
.para{margin:0 0 .45em;white-space:pre-wrap}
.passage{border-left:3px solid #bbb;padding-left:.7em;margin:.5em 0;color:#333;font-size:.95em}
.note a.whole{color:#1f4fbf;font-weight:600}
.note{font-size:.85em;color:#8a5a00;background:#fff6e0;border-radius:4px;padding:.2em .5em;margin:.4em 0}
.stats{font-size:.85em;color:#7a1f1f;background:#fdecec;border-radius:4px;padding:.2em .5em;margin:.4em 0;
word-break:break-word}
.labels{display:flex;flex-wrap:wrap;gap:.4em;margin-top:.6em}
.labels button.on{background:#176f2c;color:#fff;border-color:#176f2c}
mark{background:#ffe27a;color:inherit;padding:0 .05em;border-radius:2px}
#dock{position:fixed;bottom:0;left:0;right:0;background:#fff;border-top:1px solid #c8c8c8;padding:.35em 1em;
display:flex;gap:.4em;align-items:center;flex-wrap:wrap;justify-content:center;z-index:2;
box-shadow:0 -1px 3px rgba(0,0,0,.06)}
#dock .dock-num{font-size:.85em;color:#555;margin-right:.4em}
#dock button.on{background:#176f2c;color:#fff;border-color:#176f2c}
body{padding-bottom:3.4em}
.banner{background:#7a1f1f;color:#fff;padding:.3em .6em;font-weight:600;margin:0 0 .4em;border-radius:4px;
font-size:.9em}
#status{font-size:.85em;color:#176f2c}
@media (max-width:640px){
header{padding:.4em .6em}main{padding:.6em}h1{font-size:.95em}progress{width:7em}
.keys{display:none}.card{padding:.6em .7em}.labels button{flex:1 1 40%}
#dock{padding:.3em .4em}#dock button{padding:.35em .5em}#dock .dock-num{display:none}
table.scale td{display:block;padding:0 0 .1em}table.scale td.l{padding-top:.45em}
}
"""

PAGE_SCRIPT = r"""
(function(){
'use strict';
var P=JSON.parse(document.getElementById('pool-data').textContent);
var store='runscore-assess-'+P.hash, state={};
try{state=JSON.parse(localStorage.getItem(store)||'{}')||{};}catch(e){state={};}
if(typeof state!=='object'||state===null){state={};}
var saved=(state.labels&&typeof state.labels==='object')?state.labels:{};
var rows=P.rows, cards=[], cur=0, lit=[], termRe=null;
var main=document.getElementById('items');
function keyOf(r){return r.topic+'\u0000'+r.item;}
function scaleOf(r){return P.scales[r.unit||'']||P.scales[P.default_unit];}
function el(tag,cls,text){var e=document.createElement(tag);if(cls){e.className=cls;}
  if(text!==undefined&&text!==null){e.textContent=String(text);}return e;}
function keep(){state.labels=saved;try{localStorage.setItem(store,JSON.stringify(state));}catch(e){}}
rows.forEach(function(r){var l=saved[keyOf(r)];r.label=(typeof l==='string'&&scaleOf(r).labels.indexOf(l)>=0)?l:'';});
// ---- highlighting: text nodes and <mark> elements only, never markup from the data
function escRe(s){return s.replace(/[.*+?^${}()|[\]\\\/-]/g,'\\$&');}
function stem(t){
  var w=t.toLowerCase();if(/[^a-z]/.test(w)){return w;}
  if(w.length>=6&&/ing$/.test(w)){return w.slice(0,-3);}
  if(w.length>=6&&/ies$/.test(w)){return w.slice(0,-3);}
  if(w.length>=6&&/ed$/.test(w)){return w.slice(0,-2);}
  if(w.length>=4&&/s$/.test(w)&&!/ss$/.test(w)){return w.slice(0,-1);}
  return w;
}
function setTerms(list){
  var terms=list.map(function(t){return t.trim();}).filter(function(t){return t.length>0;})
    .sort(function(a,b){return b.length-a.length;});
  termRe=null;
  if(terms.length){
    // a Latin term matches at a word's start, by its stem, and marks the whole word (repairs: repair, repaired)
    var wordy=terms.map(function(t){return /^[A-Za-z0-9\u00c0-\u024f]/.test(t)?
      '(?<![\\p{L}\\p{N}])'+escRe(stem(t)).replace(/\s+/g,'\\s+')+'[\\p{L}\\p{N}]*':escRe(t);});
    try{termRe=new RegExp(wordy.join('|'),'giu');}
    catch(e){try{termRe=new RegExp(terms.map(escRe).join('|'),'gi');}catch(e2){termRe=null;}}
  }
  lit.forEach(function(x){fill(x[0],x[1]);});
}
function fill(node,text){
  while(node.firstChild){node.removeChild(node.firstChild);}
  if(!termRe){node.appendChild(document.createTextNode(text));return;}
  var last=0,m;termRe.lastIndex=0;
  while((m=termRe.exec(text))!==null){
    if(m[0]===''){termRe.lastIndex++;continue;}
    if(m.index>last){node.appendChild(document.createTextNode(text.slice(last,m.index)));}
    node.appendChild(el('mark',null,m[0]));last=m.index+m[0].length;
  }
  if(last<text.length){node.appendChild(document.createTextNode(text.slice(last)));}
}
function lighted(node,text){lit.push([node,String(text)]);fill(node,String(text));return node;}
function paragraphs(box,text){String(text).split('\n').forEach(function(line){if(line.trim()){
  lighted(box.appendChild(el('p','para')),line);}});return box;}
// ---- the topic
function topicInto(box){
  var t=P.topic;
  if(t.title){lighted(box.appendChild(el('h2',null)),t.title);}
  (t.fields||[]).forEach(function(f){var d=el('div','field');d.appendChild(el('div','label',f[0]));
    lighted(d.appendChild(el('div','value')),f[1]);box.appendChild(d);});
  if(!t.title&&!(t.fields||[]).length){box.appendChild(el('div','note','No topic text: run `runscore pool` with --topics FILE to show it here.'));}
}
topicInto(document.getElementById('topic-box'));
topicInto(document.getElementById('topic-pop'));
var input=document.getElementById('terms');
input.value=(Array.isArray(state.terms)?state.terms:(P.topic.terms||[])).join(', ');
input.addEventListener('change',function(){var list=input.value.split(',');state.terms=list;keep();setTerms(list);});
// ---- the cards
function stateText(r){if(!r.label){return '';}var s=scaleOf(r);var i=s.labels.indexOf(r.label);return r.label+' '+s.names[i];}
function card(r,i){
  var c=el('article','card');c.id='item-'+i;c.setAttribute('data-item',r.item);
  var head=el('div','head');head.appendChild(el('span','num',(i+1)+'.'));
  head.appendChild(el('span','key',r.doc||(r.unit?'':r.item)));    // an answer's key is a hash: not shown
  if(r.unit){head.appendChild(el('span','unit',r.unit));}
  head.appendChild(el('span','state'));c.appendChild(head);
  var v=r.view||{};
  if(v.title){lighted(c.appendChild(el('h2','title')),v.title);}
  if(v.facts&&v.facts.length){var f=el('div','facts');v.facts.forEach(function(x){var s=el('span','fact');
    s.appendChild(el('span','fact-label',x[0]+': '));s.appendChild(document.createTextNode(x[1]));f.appendChild(s);});
    c.appendChild(f);}
  if(r.text){paragraphs(c.appendChild(el('div','text')),r.text);}
  (v.sections||[]).forEach(function(s){if(s[0]){c.appendChild(el('div','section-label',s[0]));}
    paragraphs(c.appendChild(el('div','text')),s[1]);});
  shortNote(c,r,v);
  if(r.missing){c.appendChild(el('div','note missing','This document was not found in the collection given to the pool; tell the organiser.'));}
  if(r.passage){var p=el('div','passage');p.appendChild(el('div','section-label','cited passage'));
    paragraphs(p.appendChild(el('div','passage-text')),r.passage);c.appendChild(p);}
  if(P.stats){c.appendChild(el('div','stats',P.stats[i]));}
  var b=el('div','labels');
  var s=scaleOf(r);
  s.labels.forEach(function(l,j){var btn=el('button',null,l+' '+s.names[j]+' ');btn.type='button';
    btn.setAttribute('data-label',l);btn.title=s.meanings[j]||s.names[j];btn.appendChild(el('kbd',null,s.keys[j]));
    btn.addEventListener('click',function(){go(i,true);setLabel(l);});b.appendChild(btn);});
  c.appendChild(b);
  c.addEventListener('click',function(e){if(!(e.target.closest&&e.target.closest('button'))){go(i,false);}});
  return c;
}
// ---- a long document: cut at a word, its whole text a link away (a file beside the page, so the page stays light)
function shortNote(c,r,v){
  var s=v.shortened||r.shortened;if(!s){return;}
  var n=el('div','note short','Shortened: '+(s.shown<s.length?'the first '+s.shown.toLocaleString('en')+' of '+
    s.length.toLocaleString('en')+' characters are shown':'the title is shown in part')+'. ');
  if(r.whole){var a=el('a','whole','Read the whole text');a.href=r.whole;a.target='_blank';a.rel='noopener';
    n.appendChild(a);}
  c.appendChild(n);
}
function paint(i){
  var r=rows[i],c=cards[i];
  c.className='card'+(i===cur?' current':'')+(r.label?' done':'');
  c.querySelector('.state').textContent=stateText(r);
  c.querySelectorAll('.labels button').forEach(function(b){b.className=b.getAttribute('data-label')===r.label?'on':'';});
}
var dock=document.getElementById('dock');
function dockPaint(){
  while(dock.firstChild){dock.removeChild(dock.firstChild);}
  if(!rows.length){return;}
  var r=rows[cur],s=scaleOf(r);
  dock.appendChild(el('span','dock-num',(cur+1)+' / '+rows.length));
  s.labels.forEach(function(l,j){var btn=el('button',l===r.label?'on':null,l+' ');btn.type='button';
    btn.title=s.names[j];btn.appendChild(el('kbd',null,s.keys[j]));
    btn.addEventListener('click',function(){setLabel(l);});dock.appendChild(btn);});
  var nx=el('button',null,'next unlabelled');nx.type='button';nx.addEventListener('click',nextUnlabelled);
  dock.appendChild(nx);
}
function progress(){
  var done=rows.filter(function(r){return r.label;}).length;
  var bar=document.getElementById('progress');bar.max=rows.length;bar.value=done;
  document.getElementById('count').textContent=done+' / '+rows.length+' labelled';
}
function go(i,quiet){
  if(!rows.length){return;}
  i=Math.max(0,Math.min(rows.length-1,i));var old=cur;cur=i;paint(old);paint(cur);dockPaint();
  if(!quiet&&cards[cur].scrollIntoView){cards[cur].scrollIntoView({block:'start'});}
}
function setLabel(l){
  var r=rows[cur];r.label=l;if(l){saved[keyOf(r)]=l;}else{delete saved[keyOf(r)];}keep();paint(cur);progress();
  dockPaint();
  if(l&&cur<rows.length-1){go(cur+1);}
}
function nextUnlabelled(){
  for(var k=1;k<=rows.length;k++){var i=(cur+k)%rows.length;if(!rows[i].label){go(i);return;}}
}
var first=rows.findIndex?rows.findIndex(function(r){return !r.label;}):0;
cur=first>=0?first:0;                   // resume at the first unlabelled item
setTerms(input.value.split(','));      // before the cards: each text is marked once, as it is made
var frag=document.createDocumentFragment();
rows.forEach(function(r,i){var c=card(r,i);cards.push(c);frag.appendChild(c);});
main.appendChild(frag);
rows.forEach(function(r,i){paint(i);});
progress();
dockPaint();
function fitHead(){document.documentElement.style.setProperty('--head',document.querySelector('header').offsetHeight+'px');}
window.addEventListener('resize',fitHead);fitHead();
if(cur>0&&cards[cur].scrollIntoView){cards[cur].scrollIntoView({block:'start'});}
function toggle(id){var e=document.getElementById(id);e.classList.toggle('open');fitHead();}
document.getElementById('topic-line').addEventListener('click',function(){toggle('topic-pop');});
document.getElementById('help-button').addEventListener('click',function(){
  document.getElementById('scale-panel').scrollIntoView({block:'start'});});
document.addEventListener('keydown',function(e){
  if(e.ctrlKey||e.metaKey||e.altKey){return;}
  var t=e.target;if(t&&(t.tagName==='INPUT'||t.tagName==='TEXTAREA')){if(e.key==='Escape'){t.blur();}return;}
  var k=e.key,done=true;
  if(k==='ArrowDown'||k==='j'){go(cur+1);}
  else if(k==='ArrowUp'||k==='k'){go(cur-1);}
  else if(k==='n'){nextUnlabelled();}
  else if(k==='t'){toggle('topic-pop');}
  else if(k==='Backspace'||k==='Delete'){setLabel('');}
  else if(rows.length){var s=scaleOf(rows[cur]),j=s.keys.indexOf(k.toLowerCase());
    if(j>=0){setLabel(s.labels[j]);}else{done=false;}}
  else{done=false;}
  if(done){e.preventDefault();}
});
// ---- the sheet
function esc(s){return String(s).replace(/\\/g,'\\\\').replace(/\t/g,'\\t').replace(/\n/g,'\\n').replace(/\r/g,'\\r');}
// a quote before a formula start at the cell's start or after a separator or quote (campaign/safe_output.py)
var STARTS='=+-@\t\r\n\u0000\'"',SPLITS=',;\t"';
function cell(s){s=esc(s);var out='';for(var i=0;i<s.length;i++){var c=s.charAt(i);
  if(STARTS.indexOf(c)>=0&&(i===0||SPLITS.indexOf(s.charAt(i-1))>=0)){out+="'";}out+=c;}return out;}
function sheet(){
  var out=[P.columns.join('\t')];
  rows.forEach(function(r){out.push(P.columns.map(function(c){return cell(r[c]===undefined?'':r[c]);}).join('\t'));});
  return out.join('\n')+'\n';
}
window.runscoreSheet=sheet;
document.getElementById('save').addEventListener('click',function(){
  var a=document.createElement('a');
  a.href=URL.createObjectURL(new Blob([sheet()],{type:'text/tab-separated-values;charset=utf-8'}));
  a.download=P.file;document.body.appendChild(a);a.click();a.remove();
  var done=rows.filter(function(r){return r.label;}).length;
  document.getElementById('status').textContent='saved '+P.file+' ('+done+' of '+rows.length+' labelled)';
});
})();
"""


@dataclass
class PageItem:
    """One row of a page: the sheet's key columns (`topic`, `item`, and `unit`, `text_sha1` where the pool has
    them), and what is shown: the document id, the run's text, the cited passage, the collection's view of the
    document (title, facts, sections) and whether the collection lacked it; whole: the file beside the page that
    holds the whole text when the card shows it shortened (write_whole_texts)."""

    key: Dict[str, str]
    doc: str = ""
    text: str = ""
    passage: str = ""
    view: Optional[Dict[str, object]] = None
    missing: bool = False
    whole: str = ""

    def as_json(self) -> Dict[str, object]:
        out: Dict[str, object] = dict(self.key)
        for name in ("doc", "text", "passage"):
            value = getattr(self, name)
            if value:
                out[name] = shorten(value, MAX_SHOWN_CHARS)     # a run's text is the participant's: cut like a document
                if len(value) > MAX_SHOWN_CHARS and name != "doc":
                    out.setdefault("shortened", {"shown": len(out[name]), "length": len(value)})
        if self.view:
            out["view"] = self.view
        if self.missing:
            out["missing"] = True
        if self.whole:
            out["whole"] = self.whole
        return out

    def shortened(self) -> bool:
        return len(self.text) > MAX_SHOWN_CHARS or len(self.passage) > MAX_SHOWN_CHARS or \
            bool(self.view and self.view.get("shortened"))


def page(task: Task, topic_id: str, topic: Optional[Dict[str, object]], items: Sequence[PageItem],
         columns: Sequence[str], file_name: str, batch: str = "", stats: Optional[List[str]] = None,
         order: str = "") -> str:
    """The page of one topic's batch. topic: Topic.as_json() or None; columns: what the saved sheet holds (the
    key columns and `label`); batch: how the header names the batch ("" for a whole topic); stats: the
    organiser's view only, a line per item about the runs that retrieved it (None on an assessor's page); order:
    the items' order and why (campaign/pool.py ORDER_WHY), said under the keys."""
    form = task.assessment
    units = sorted({item.key.get("unit", "") for item in items}) or [form.default_unit]
    scales = {}
    for unit in set(units) | {form.default_unit}:
        scale = form.scale(unit)
        scales[unit] = {"labels": list(scale.labels), "keys": list(scale.keys), "names": list(scale.names),
                        "meanings": list(scale.meanings) or list(scale.names)}
    rows = [item.as_json() for item in items]
    digest = hashlib.sha1(json.dumps([task.id, topic_id, batch, [(i.key["item"], i.key.get("text_sha1", ""))
                                                                   for i in items]]).encode("utf-8")).hexdigest()[:16]
    shown_topic = dict(topic) if topic else {"id": topic_id, "title": "", "fields": [], "terms": []}
    data = {"task": task.id, "topic": shown_topic, "columns": list(columns), "rows": rows, "scales": scales,
            "default_unit": form.default_unit, "hash": digest, "file": file_name}
    if stats is not None:
        data["stats"] = list(stats)
    embedded = json_for_script(data)        # no `</script>`, `<!--` or `<script` inside: they change the script state
    title = "%s &middot; topic %s%s" % (html.escape(task.title), html.escape(topic_id),
                                        " &middot; %s" % html.escape(batch) if batch else "")
    keys = " ".join("<kbd>%s</kbd>" % html.escape(k) for k in dict.fromkeys(k for unit in units
                                                                           for k in form.scale(unit).keys))
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>Assess topic %(topic)s%(batch_title)s</title><style>%(style)s</style></head>
<body><header>%(banner)s<div class="line"><h1>%(title)s</h1>
<progress id="progress" value="0" max="%(n)d"></progress><span id="count"></span>
<button id="save" type="button">Save labelled sheet</button><button id="help-button" type="button">Scale</button>
<span id="status"></span></div>
<div class="line"><div id="topic-line" title="show the topic (key t)">%(topic_line)s</div></div>
<div id="topic-pop"></div>
<div class="keys">Keys: %(keys)s label &middot; <kbd>j</kbd>/<kbd>k</kbd> or arrows move &middot; <kbd>n</kbd> next
unlabelled &middot; <kbd>Backspace</kbd> clear &middot; <kbd>t</kbd> topic. Labels are kept in this browser until
you save the sheet.</div>%(order)s</header>
<main><section class="panel" id="topic-panel"><div id="topic-box"></div>
<div class="terms"><label for="terms">Highlighted terms</label><input id="terms" type="text"
spellcheck="false" placeholder="words or phrases, separated by commas"></div></section>
<section class="panel" id="scale-panel"><h2>Labels</h2>%(scale)s</section>
<div id="items"></div></main>
<div id="dock" aria-label="label the current item"></div>
<script type="application/json" id="pool-data">%(data)s</script>
<script>%(script)s</script></body></html>
""" % {"topic": html.escape(topic_id), "batch_title": " (%s)" % html.escape(batch) if batch else "",
       "style": PAGE_STYLE, "script": PAGE_SCRIPT, "title": title, "n": len(items), "keys": keys,
       "order": '<div class="keys" id="order">Order of the items: %s.</div>' % html.escape(order) if order else "",
       "topic_line": _topic_line(topic_id, shown_topic), "scale": _scale_table(form, units), "data": embedded,
       "banner": '<div class="banner">Organiser\'s view: shows which runs retrieved each item. Never give this '
                 'page to an assessor (their pages are in assess/).</div>' if stats is not None else ""}


def _topic_line(topic_id: str, topic: Dict[str, object]) -> str:
    title = str(topic.get("title") or "")
    return "<b>%s</b>%s" % (html.escape(topic_id), " &middot; %s" % html.escape(title) if title else
                            " &middot; (no topic text)")


def _scale_table(form, units: Sequence[str]) -> str:
    parts = []
    for unit in units:
        scale = form.scale(unit)
        heading = "<div class=\"section-label\">%s</div>" % html.escape(unit + "s") if len(units) > 1 else ""
        cells = "".join("<tr><td class=\"l\"><kbd>%s</kbd> %s %s</td><td>%s</td></tr>"
                        % (html.escape(key), html.escape(label), html.escape(name), html.escape(meaning))
                        for label, key, name, meaning in zip(scale.labels, scale.keys, scale.names,
                                                              scale.meanings or scale.names))
        parts.append("%s<table class=\"scale\">%s</table>" % (heading, cells))
    return "".join(parts)


# ------------------------------------------------------------------------------------ whole texts ---
WHOLE_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f4f1;color:#1d1d1d;line-height:1.5}
main{max-width:62em;margin:0 auto;padding:1em;background:#fff;min-height:100vh}
h1{font-size:1.2em;margin:.2em 0 .4em;word-break:break-word}
.key{font-family:ui-monospace,monospace;color:#555;font-size:.85em;word-break:break-all}
.facts{font-size:.84em;color:#555;word-break:break-word}.facts span{margin-right:1em}.facts b{color:#888;font-weight:400}
.section-label{font-size:.78em;text-transform:uppercase;letter-spacing:.04em;color:#666;margin-top:.8em}
p{margin:0 0 .45em;white-space:pre-wrap;word-break:break-word}
mark{background:#ffe27a;color:inherit;padding:0 .05em;border-radius:2px}
.note{font-size:.85em;color:#8a5a00;background:#fff6e0;border-radius:4px;padding:.2em .5em;margin:.6em 0}
"""


def marked(text: str, terms: Optional["re.Pattern[str]"]) -> str:
    """`text` as escaped markup with the topic's query terms in <mark> (the rule of the page's script: a Latin term
    matches at a word's start by its stem and marks the whole word; another term where it occurs)."""
    if terms is None:
        return html.escape(text)
    out, last = [], 0
    for match in terms.finditer(text):
        if match.end() == match.start():
            continue
        out.append(html.escape(text[last:match.start()]))
        out.append("<mark>%s</mark>" % html.escape(match.group(0)))
        last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def terms_pattern(terms: Sequence[str]) -> Optional["re.Pattern[str]"]:
    """The regex of a topic's query terms, longest first, as the page's script builds it (setTerms)."""
    words = sorted({t.strip() for t in terms if t and t.strip()}, key=len, reverse=True)
    if not words:
        return None
    parts = [r"(?<!\w)" + r"\s+".join(re.escape(w) for w in _stem(t).split()) + r"\w*"
             if re.match(r"[A-Za-z0-9\u00c0-\u024f]", t) else re.escape(t) for t in words]
    return re.compile("|".join(parts), re.I)


def _stem(term: str) -> str:
    word = term.lower()
    if re.search(r"[^a-z]", word):
        return word
    for suffix, least in (("ing", 6), ("ies", 6), ("ed", 6)):
        if len(word) >= least and word.endswith(suffix):
            return word[:-len(suffix)]
    if len(word) >= 4 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def whole_text_page(item: PageItem, document: Optional[Document], number: int, terms: Sequence[str] = ()) -> str:
    """The whole text of one shortened card, as a page of its own (no script at all: the text is escaped markup
    made here, so nothing in it can run; the same Content-Security-Policy as the assessment page), the topic's
    query terms marked as on the page."""
    pattern = terms_pattern(terms)
    parts = []
    title = document.title if document is not None else ""
    parts.append('<div class="key">%d. %s</div>' % (number, html.escape(item.doc or "")))
    if title:
        parts.append("<h1>%s</h1>" % marked(title, pattern))
    facts = document.facts if document is not None else []
    if facts:
        parts.append('<div class="facts">%s</div>' % "".join(
            "<span><b>%s:</b> %s</span>" % (html.escape(label), html.escape(value)) for label, value in facts))
    sections = list(document.sections) if document is not None and item.view and "sections" in item.view else []
    if item.text:
        sections.insert(0, ("", item.text[:MAX_KEPT_CHARS]))
    if item.passage:
        sections.append(("cited passage", item.passage[:MAX_KEPT_CHARS]))
    for label, text in sections:
        if label:
            parts.append('<div class="section-label">%s</div>' % html.escape(label))
        parts.append("".join("<p>%s</p>" % marked(line, pattern) for line in text.split("\n") if line.strip()))
    if document is not None and document.cut:
        parts.append('<div class="note">The record is longer still: only the %s characters above are kept.</div>'
                     % format(document.length() - len(document.title), ","))
    elif len(item.text) > MAX_KEPT_CHARS:
        parts.append('<div class="note">The text is longer still: its first %s characters are shown.</div>'
                     % format(MAX_KEPT_CHARS, ","))
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>%(key)s: the whole text</title><style>%(style)s</style></head>
<body><main>%(body)s</main></body></html>
""" % {"key": html.escape(item.doc or str(number)), "style": WHOLE_STYLE, "body": "\n".join(parts)}


def write_whole_texts(folder: str, page_name: str, items: Sequence[PageItem], documents: Dict[str, Document],
                      terms: Sequence[str] = ()) -> List[str]:
    """For each item its card shows shortened, the whole text in `folder/<page_name>-texts/N.html` (N: the card's
    number), linked from the card (item.whole, relative to the page): the page holds only what its cards show, so
    a 1,000-document page with long documents stays light. Returns the paths written."""
    written = []
    for number, item in enumerate(items, 1):
        if not item.shortened():
            continue
        relative = "%s-texts/%d.html" % (page_name, number)
        path = os.path.join(folder, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(whole_text_page(item, documents.get(item.doc), number, terms))
        item.whole = relative
        written.append(path)
    return written
