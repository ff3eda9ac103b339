#!/usr/bin/env python3
"""Expected turn-faithful texts of chat templates, from transformers' own apply_chat_template.

For every row of ROWS (as scripts/render_chat_templates.py reads them) and every .jinja template
of a folder, and for each assistant message i of the row, the text of turn i as the model is
trained on it with `--turns faithful`:

    G = apply_chat_template(messages[:i], add_generation_prompt=True)
    F = apply_chat_template(messages[:i + 1])
    T, the turn as the model writes it: F less G when F begins with G; else, from a probe with only
      the conversation's opening (its system messages and first user message) before the turn,
      Y = apply(opening + [message i]), Y0 = apply(opening, add_generation_prompt=True):
      Y less Y0, or, where Y leaves Y0 inside the generation prompt, Y from the last newline they
      share. F must end with T.
    expected = G + T

(the rule of src/stages/trajectories/jinja/turns.ts, here on transformers' renders alone). Writes
{template: {key: {"turns": [{"message": i, "start": len(G), "bytes", "sha256"[, "text"]}]} or
{"error": message}}}: the full text for keys starting with --text-prefix, a hash for the rest.

  python3 scripts/render_faithful_turns.py ROWS --templates DIR --settings settings.json \\
    --tokenizer tokenizer.json --out faithful.json [--date 2024-07-26]
"""
import argparse
import datetime
import hashlib
import json
import os
import sys

from transformers import PreTrainedTokenizerFast

from render_chat_templates import with_json_arguments


def common_prefix(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def opening(messages, i):
    for k in range(i):
        if messages[k]["role"] == "user":
            return k + 1
    k = 0
    while k < i and messages[k]["role"] == "system":
        k += 1
    return k


def turn_text(render, messages, i, G, F):
    if F.startswith(G):
        return F[len(G):]
    n = opening(messages, i)
    if n < i:
        Y0, Y = render(messages[:n], True), render(messages[:n] + [messages[i]], False)
    else:
        Y0, Y = G, F
    if Y.startswith(Y0):
        T = Y[len(Y0):]
    else:
        T = Y[Y0.rfind("\n", 0, common_prefix(Y0, Y)) + 1:]
    if not F.endswith(T):
        raise ValueError(f"assistant message {i}: its text is not the end of the render up to it")
    return T


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("--templates", required=True)
    ap.add_argument("--settings", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--text-prefix", default="stress")
    ap.add_argument("--date", default="2024-07-26")
    a = ap.parse_args()
    date = datetime.datetime.strptime(a.date, "%Y-%m-%d")
    settings = json.load(open(a.settings, encoding="utf-8"))
    rows = [json.loads(line) for line in open(a.rows, encoding="utf-8") if line.strip()]
    tok = PreTrainedTokenizerFast(tokenizer_file=a.tokenizer)
    out = {}
    for name in sorted(n for n in os.listdir(a.templates) if n.endswith(".jinja")):
        template = open(os.path.join(a.templates, name), encoding="utf-8").read()
        s = settings.get(name, {})
        kwargs = {k: s[k] for k in ("bos_token", "eos_token") if k in s}
        results = {}
        for r in rows:
            row = with_json_arguments(r["row"]) if s.get("json_arguments") else r["row"]
            messages = row["messages"]

            def render(msgs, gen):
                return tok.apply_chat_template(msgs, tools=row["tools"], tokenize=False, add_generation_prompt=gen,
                                               chat_template=template, strftime_now=lambda f: date.strftime(f), **kwargs)
            try:
                render(messages, False)
                turns = []
                for i, m in enumerate(messages):
                    if m["role"] != "assistant":
                        continue
                    G = render(messages[:i], True)
                    text = G + turn_text(render, messages, i, G, render(messages[:i + 1], False))
                    b = text.encode("utf-8")
                    t = {"message": i, "start": len(G), "bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
                    if r["key"].startswith(a.text_prefix):
                        t["text"] = text
                    turns.append(t)
            except Exception as e:  # the template's own raise_exception, or a Jinja error
                results[r["key"]] = {"error": str(e)}
                continue
            results[r["key"]] = {"turns": turns}
        out[name] = results
        errors = sum(1 for x in results.values() if "error" in x)
        print(f"{name}: {len(results) - errors} rows, {errors} raised", file=sys.stderr)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
