"""Canonical measure names that parse back to themselves, and translators from the peers' names.

Why a tiny explicit grammar: task options, leaderboard columns, docs and the CLI all name measures; one parser
means `MSnDCG@20` means the same everywhere, and a typo is a usage error with suggestions instead of a silent 0.

    name   := family ["@" cutoff] ["(" param "=" number {"," param "=" number} ")"]
    family := a key of measures.ntcireval.FAMILIES (AP, Q, nDCG, MSnDCG, P, Hit, RR, ERR, nERR, RBP, ...)
    cutoff := a positive integer without leading zeros

Canonical form: parameters sorted by name and left out when equal to their default (`Q(beta=0.5)`, `Q`).
NTCIREVAL prints 4-digit cutoffs and other family names (`MSnDCG@0020`, `Q-measure`, `NCUgu,P`): see
`from_ntcireval` / `to_ntcireval`. `from_trec_eval` translates the trec_eval names whose definition coincides
with an NTCIREVAL measure on the same labelled list (e.g. `ndcg_cut.20` with linear gains = `MSnDCG@20`).
"""
import difflib
import re
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..errors import ConfigError
from .ntcireval import FAMILIES, GradedRanking

_NAME = re.compile(r"(?P<family>[A-Za-z][A-Za-z0-9]*)(?:@(?P<cutoff>[0-9]+))?(?:\((?P<params>[^()]*)\))?")
_PARAM = re.compile(r"\s*(?P<key>[a-z]+)\s*=\s*(?P<value>[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*")

_NTCIREVAL_FAMILIES = {m.ntcireval: m.family for m in FAMILIES.values()}
_NTCIREVAL_FAMILIES["Prec"] = "P"          # NTCIREVAL's documentation spells precision Prec@l
_NTCIREVAL_FAMILIES["Q"] = "Q"             # with a cutoff NTCIREVAL prints Q@0010, without it Q-measure

_TREC_EVAL = {
    "map": "AP",
    "recip_rank": "RR",
    "P": "P@{}",
    "ndcg_cut": "MSnDCG@{}",
    "success": "Hit@{}",
}


class MeasureName(NamedTuple):
    """A parsed measure name; str() gives the canonical form."""

    family: str
    cutoff: Optional[int] = None
    params: Tuple[Tuple[str, float], ...] = ()

    def __str__(self) -> str:
        text = self.family
        if self.cutoff is not None:
            text += "@%d" % self.cutoff
        if self.params:
            text += "(%s)" % ",".join("%s=%s" % (k, _number(v)) for k, v in self.params)
        return text

    def param(self, key: str) -> float:
        return dict(self.params).get(key, FAMILIES[self.family].params[key])


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def known_examples():
    """Names a user may have meant: every family, with a typical cutoff where it takes one."""
    out = []
    for family, measure in FAMILIES.items():
        if measure.cutoff != "required":
            out.append(family)
        if measure.cutoff != "none":
            out.extend("%s@%d" % (family, c) for c in (10, 20))
    return out


def _bad(text: str, why: str) -> ConfigError:
    close = difflib.get_close_matches(text, known_examples(), n=3, cutoff=0.5)
    hint = " (did you mean %s?)" % ", ".join(close) if close else ""
    return ConfigError("unknown measure %r: %s%s" % (text, why, hint))


def parse_name(text: str) -> MeasureName:
    """Parse a canonical (or non-canonical but valid, e.g. `Q(beta=1)`) name; ConfigError with suggestions."""
    match = _NAME.fullmatch(text.strip())
    if not match:
        raise _bad(text, "expected FAMILY[@CUTOFF][(param=value,...)], e.g. MSnDCG@20")
    family = match.group("family")
    measure = FAMILIES.get(family)
    if measure is None:
        raise _bad(text, "no measure family %r (known: %s)" % (family, ", ".join(FAMILIES)))
    cutoff = None
    if match.group("cutoff") is not None:
        digits = match.group("cutoff")
        if measure.cutoff == "none":
            raise _bad(text, "%s takes no cutoff" % family)
        if digits.startswith("0"):
            raise _bad(text, "a cutoff is a positive integer without leading zeros (NTCIREVAL's %s@%s is "
                       "written %s@%d)" % (family, digits, family, int(digits)))
        cutoff = int(digits)
    elif measure.cutoff == "required":
        raise _bad(text, "%s needs a cutoff, e.g. %s@20" % (family, family))
    params = {}
    if match.group("params") is not None:
        for part in match.group("params").split(","):
            item = _PARAM.fullmatch(part)
            if not item:
                raise _bad(text, "parameter %r: expected name=number" % part.strip())
            key = item.group("key")
            if key not in measure.params:
                raise _bad(text, "%s has no parameter %r (parameters: %s)"
                           % (family, key, ", ".join(measure.params) or "none"))
            if key in params:
                raise _bad(text, "parameter %r given twice" % key)
            params[key] = float(item.group("value"))
    canonical = tuple(sorted((k, v) for k, v in params.items() if v != measure.params[k]))
    return MeasureName(family, cutoff, canonical)


def canonical(text: str) -> str:
    return str(parse_name(text))


def from_ntcireval(text: str) -> MeasureName:
    """NTCIREVAL output name (`MSnDCG@0020`, `Q-measure`, `NCUgu,P`, `Prec@0010`) -> MeasureName."""
    name = text.strip().rstrip("=")
    family_text, _, cutoff = name.partition("@")
    family = _NTCIREVAL_FAMILIES.get(family_text)
    if family is None or (cutoff and not cutoff.isdigit()):
        raise _bad(text, "not an NTCIREVAL measure name")
    if cutoff:
        return parse_name("%s@%d" % (family, int(cutoff)))
    return parse_name(family)


def to_ntcireval(name) -> str:
    """MeasureName or canonical name -> the name NTCIREVAL prints (4-digit cutoff)."""
    parsed = parse_name(name) if isinstance(name, str) else name
    base = FAMILIES[parsed.family].ntcireval
    if parsed.cutoff is not None and parsed.family == "Q":
        base = "Q"
    return base if parsed.cutoff is None else "%s@%04d" % (base, parsed.cutoff)


def from_trec_eval(text: str) -> MeasureName:
    """trec_eval name (`map`, `P_20`/`P.20`, `recip_rank`, `ndcg_cut_20`/`ndcg_cut.20`, `success_1`) ->
    the NTCIREVAL measure that gives the same value on the same labelled list (binary or linear gains)."""
    name = text.strip()
    match = re.fullmatch(r"([a-z_A-Z]+?)(?:[._]([0-9]+))?", name)
    template = _TREC_EVAL.get(match.group(1)) if match else None
    if template is None or (("{}" in template) != (match.group(2) is not None)):
        raise _bad(text, "no NTCIREVAL equivalent of trec_eval measure %r (translated: %s)"
                   % (text, ", ".join(sorted(_TREC_EVAL))))
    return parse_name(template.format(int(match.group(2))) if match.group(2) else template)


# ------------------------------------------------------------------ the names a user types ---
# A task's measure has one name (the key of its scores, e.g. `map_rel1`, `msndcg20`, `P_10_rel1`), shown by
# `runscore score` and, lower-cased after the task prefix, as its leaderboard key (`ntcir1_adhoc_map_rel1`).
# Where a user types a measure (`compare --measure`), the other spellings are accepted: the leaderboard key,
# ir_measures-style names (`AP`, `P@10`, `nDCG@10`, `RR`, `R@100`), trec_eval's `-m` spelling (`P.10`,
# `ndcg_cut.10`) and any case; they are compared as "squashed" forms (lower case, letters and digits only).

# ir_measures (and NTCIREVAL) names -> the trec_eval name of the same measure; `{}` takes the cutoff.
# Cutoffs are ASCII digits, at most 18 of them: `\d` took any Unicode digit (`P@٣` was P.3) and int() of a
# 5,000-digit cutoff raised a ValueError through the API (its cost grows with the square of the digits on Python
# 3.9 builds without the int-string limit).
_CUT = "([0-9]{1,18})"
_IR_MEASURES_TO_TREC = [(pattern.replace("@N", "@" + _CUT), template) for pattern, template in [
    (r"m?ap", "map"), (r"m?ap@N", "map_cut.{}"), (r"p@N|prec@N", "P.{}"),
    (r"ndcg@N|ndcg_cut@N", "ndcg_cut.{}"), (r"ndcg", "ndcg"), (r"m?rr|reciprank", "recip_rank"),
    (r"r-?prec|rprec", "Rprec"), (r"bpref", "bpref"), (r"r@N|recall@N", "recall.{}"),
    (r"success@N|hit@N", "success.{}"), (r"numret", "num_ret"), (r"numrel", "num_rel"),
    (r"numrelret|numrel_ret", "num_rel_ret"), (r"infap", "infAP"), (r"gm_?map|gmap", "gm_map"),
    (r"11pt|11pt_?avg|interp_11pt", "11pt_avg"), (r"judged@N", "judged.{}"), (r"err@N", "ERR@{}"),
]]


def squash(name: str) -> str:
    """The form names are compared in: lower case, letters and digits only (`P@10` = `p_10` = `P.10`)."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def ir_measures_to_trec_eval(name: str) -> Optional[str]:
    """The trec_eval spelling (`-m` form, e.g. `ndcg_cut.10`) of an ir_measures-style name (`nDCG@10`), or None."""
    text = name.strip().lower()
    for pattern, template in _IR_MEASURES_TO_TREC:
        match = re.fullmatch(pattern, text)
        if match:
            cutoff = next((g for g in match.groups() if g), None)
            return template.format(int(cutoff)) if cutoff else template
    return None


def spellings(name: str) -> List[str]:
    """Squashed forms a typed name may stand for: itself, and its trec_eval translation."""
    forms = [squash(name)]
    translated = ir_measures_to_trec_eval(name)
    if translated is not None:
        forms.append(squash(translated))
    return [f for i, f in enumerate(forms) if f and f not in forms[:i]]


def close_names(name: str, known: Sequence[str], n: int = 5, suffixes: Sequence[str] = ()) -> List[str]:
    """The known names closest to a typed one, compared squashed (so `ndcg@10` finds `ndcg_cut_10`) and, where
    a name ends in one of `suffixes` (`rel1`), also without it (so `mapp` finds `map_rel1`)."""
    by_form: Dict[str, str] = {}
    for k in known:
        by_form.setdefault(squash(k), k)
        for suffix in suffixes:
            if squash(k).endswith(squash(suffix)) and len(squash(k)) > len(squash(suffix)):
                by_form.setdefault(squash(k)[:-len(squash(suffix))], k)
    found: List[str] = []
    for form in spellings(name):
        for match in difflib.get_close_matches(form, list(by_form), n=n, cutoff=0.6):
            if by_form[match] not in found:
                found.append(by_form[match])
        # a name that starts like the typed one (`map` -> `map_rel1`, `map_rel2`) is close too
        found.extend(k for f, k in by_form.items() if f.startswith(form) and k not in found and len(form) >= 2)
    return found[:n]


# ------------------------------------------------------------------ measures by name ---
# Here, not in ntcireval.py: computing by name needs the grammar, and the grammar needs the families, so the
# functions that take names live above both (ntcireval.py never imports this module).

def compute(name, t: GradedRanking) -> float:
    """The value of one measure (a canonical name or a parsed MeasureName) on one topic."""
    parsed = parse_name(name) if isinstance(name, str) else name
    measure = FAMILIES[parsed.family]
    kwargs = dict(parsed.params)
    if measure.cutoff != "none":
        if parsed.cutoff is not None or measure.cutoff == "required":
            kwargs["cutoff"] = parsed.cutoff
        else:
            kwargs["cutoff"] = None
    return measure.compute(t, **kwargs)


def compute_all(names: Sequence, t: GradedRanking) -> Dict[str, float]:
    """{canonical name: value} for several measures on one topic."""
    out = {}
    for name in names:
        parsed = parse_name(name) if isinstance(name, str) else name
        out[str(parsed)] = compute(parsed, t)
    return out
