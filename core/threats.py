"""The threat scan (docs/threat-scan.md): what in a memory's text could steer, fence-break or rob the agent.

It is a filter, not a guarantee: it blocks what its rules recognise, and text it does not flag
is not thereby safe.

Every rule is one row of `RULES`: an id, a category, a one-line reason, the view it reads, and
its pattern, written as `triggers` (plain words, one of which starts every match) followed by
the rest, or as word lists that must meet in one clause. The triggers are the only words the
fast pre-check looks for, and they are part of the pattern, so the two cannot drift apart. Rules
read a normalised view of the text (see scan_views.py): `words` for the
intent rules (leetspeak, spelling out and hyphenation undone), `text` for the rules that need
punctuation and lines, `raw` for the invisible characters normalisation removes.
In a `words` or `text` pattern a plain space stands for optional white space (`\\s*`), so a
phrase also matches when its words were run together.

Base64, hex and percent-encoded runs are decoded and scanned again; what they hide is reported
under `encoded` and under its own category. Offsets in a `Finding` index the raw text.
"""

from __future__ import annotations

import re

from .scan_views import _CONTROL, View, _ignorable, is_plain, strip_controls, strip_hidden, text_view, words_view

__all__ = [
    "CATEGORIES", "RULES", "Finding", "Rule", "redact", "redact_secrets", "scan_text", "strip_invisible",
    "strip_controls", "threat_flags",
]

CATEGORIES = ("override", "persona", "authority", "fence", "exfiltration", "encoded", "invisible", "secret")
VIEWS = ("words", "text", "cased", "raw")


class Finding:
    """One match: which rule, why it matters, and where (offsets into the raw text)."""

    __slots__ = ("category", "rule", "reason", "excerpt", "start", "end")

    def __init__(self, category: str, rule: str, reason: str, excerpt: str, start: int, end: int) -> None:
        self.category = category
        self.rule = rule
        self.reason = reason
        self.excerpt = excerpt
        self.start = start
        self.end = end

    def _key(self) -> tuple[str, str, str, str, int, int]:
        return (self.category, self.rule, self.reason, self.excerpt, self.start, self.end)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.excerpt!r}, {self.start}, {self.end})"

    def as_dict(self) -> dict[str, str | int]:
        return {slot: getattr(self, slot) for slot in self.__slots__}


class Rule:
    """One row of the table.

    `triggers`: plain lower-case words; every match begins with one (after `lead`, if given).
    `then`: the regex that must follow the trigger. `lead`: a regex that may precede it.
    `unless`: a regex that, found in the 40 characters before a match, cancels it ("never reveal
    the system prompt" warns against the act). A rule without triggers is tried on every text.
    `shape`: for secrets, whether the rule knows a key by its form (and names the finding).
    `needs`: substrings one of which every match holds (a cheap test made before the regex).
    `apart`: words that, found in the clause of a match, cancel it (for either kind of rule).
    `together`: word lists (any order, any script) one word of each of which must occur in one
    clause; the first list serves as triggers.
    A rule has either `together` or a pattern (`triggers`, `then`, `lead`).
    `prefix`: the triggers may run on into a longer word (key prefixes such as `ghp_`); such
    triggers are looked for as substrings rather than as words. True for `shape` rules.
    """

    __slots__ = ("id", "category", "reason", "view", "triggers", "then", "lead", "unless", "shape", "needs", "prefix",
                 "together", "apart", "_compiled")

    def __init__(
        self,
        id: str,
        category: str,
        reason: str,
        *,
        view: str = "words",
        triggers: tuple[str, ...] = (),
        then: str = "",
        lead: str = "",
        unless: str | None = None,
        shape: bool = False,
        needs: tuple[str, ...] = (),
        prefix: bool | None = None,
        together: tuple[tuple[str, ...], ...] = (),
        apart: tuple[str, ...] = (),
    ) -> None:
        assert category in CATEGORIES and view in VIEWS, (category, view)
        self.id = id
        self.category = category
        self.reason = reason
        self.view = view
        self.triggers = triggers
        self.then = then
        self.lead = lead
        self.unless = unless
        self.shape = shape
        self.needs = needs
        self.prefix = shape if prefix is None else prefix
        self.together = together
        self.apart = apart
        if together and not triggers:
            self.triggers = together[0]
            self.prefix = True
        self._compiled: tuple | None = None

    @property
    def source(self) -> str:
        triggers = _word_alternation(self.triggers, boundary=self.view != "cased") if self.triggers else ""
        body = self.lead + triggers + self.then
        return body if self.view in ("raw", "cased") else body.replace(" ", r"\s*")

    def compiled(self) -> tuple:
        if self._compiled is None and self.together:
            words = tuple(re.compile(_lexicon(words)) for words in self.together)
            self._compiled = (words, re.compile(_lexicon(self.apart)) if self.apart else None)
        if self._compiled is None:
            apart = re.compile(_lexicon(self.apart)) if self.apart else None
            if self.view == "raw":
                import regex

                pattern = regex.compile(self.source, regex.V1)
            else:
                pattern = re.compile(self.source, re.MULTILINE)
            unless = re.compile(rf"(?:{self.unless})[^.!?。！？\n]*\Z") if self.unless else None
            self._compiled = (pattern, unless, apart)
        return self._compiled

    def spans(self, text: str) -> list[tuple[int, int]]:
        if self.needs and not any(need in text for need in self.needs):
            return []
        if self.together:
            return self._clause_spans(text)
        pattern, unless, apart = self.compiled()
        out = []
        for match in pattern.finditer(text):
            start, end = match.span()
            if unless is not None and unless.search(text, max(0, start - 40), start):
                continue
            if apart is not None and apart.search(_clause_around(text, start, end)):
                continue
            if "value" in pattern.groupindex and match.group("value") is not None:
                start, end = match.span("value")
            if end > start:
                out.append((start, end))
        return out

    def _clause_spans(self, text: str) -> list[tuple[int, int]]:
        lexicons, apart = self.compiled()
        out = []
        for clause in _CLAUSE.finditer(text):
            start, end = clause.span()
            if all(lexicon.search(text, start, end) for lexicon in lexicons):
                if apart is None or not apart.search(text, start, end):
                    out.append((start, end))
        return out

    def __repr__(self) -> str:
        return f"Rule({self.id!r})"


# A clause: text between sentence marks or line breaks (a dot inside a word, as in a file name,
# does not end one).
_CLAUSE = re.compile(r"(?:[^.!?;。！？；\n]|\.(?=\w))+")


def _clause_around(text: str, start: int, end: int) -> str:
    """The clause a match sits in (see _CLAUSE)."""
    for clause in _CLAUSE.finditer(text, max(0, start - 200), min(len(text), end + 200)):
        if clause.start() <= start < clause.end():
            return text[clause.start() : max(end, clause.end())]
    return text[start:end]


def _trie(words, space: str = " ") -> str:
    """An alternation of `words` that shares their common beginnings and prefers the longest, so
    the engine tries each position against a few branches rather than every word. A space in a
    word becomes `space`."""
    branches: dict[str, list[str]] = {}
    for word in words:
        if word:
            branches.setdefault(word[0], []).append(word[1:])
    parts = [(space if first == " " else re.escape(first)) + _trie(rests, space) for first, rests in sorted(branches.items())]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    return f"(?:{body})?" if "" in words else body


def _word_alternation(words, space: str = " ", boundary: bool = True) -> str:
    """Any of `words`: one that begins with a Latin letter or digit must begin a word (it may
    run on: `revoke` matches `revoked`), any other matches anywhere."""
    latin = [word for word in words if word[:1].isascii() and word[:1].isalnum()]
    other = [word for word in words if word not in latin]
    parts = []
    short = [word for word in latin if len(word) <= 2]
    if short:  # a word of one or two letters must also end a word ("ai" is not "aim")
        parts.append((r"(?<![a-z0-9])" if boundary else "") + "(?:" + _trie(short, space) + ")(?![a-z0-9])")
    latin = [word for word in latin if len(word) > 2]
    if latin:
        parts.append((r"(?<![a-z0-9])" if boundary else "") + "(?:" + _trie(latin, space) + ")")
    if other:
        parts.append(_trie(other, space))
    return "(?:" + "|".join(parts) + ")"


def _lexicon(words: tuple[str, ...]) -> str:
    """One regex for a word list of a clause rule (see _word_alternation); a space matches any
    run of spaces."""
    return _word_alternation(words, r"\s*")


def _any(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


# ---------------------------------------------------------------- vocabulary

_NEG = _any(r"\bnever", r"\bnot", r"n't", r"\bno\b", r"\bavoid", r"\bwithout", "不要", "禁止", "切勿", "不得", "不能", "别",
            "不可", "しない", "するな", "禁止", "않", "말", "금지")
_IGNORE_EN = ("ignore", "disregard", "forget", "override", "overwrite", "overrule", "bypass", "discard", "abandon",
              "drop", "skip", "erase", "wipe", "scrap", "nullify", "cancel", "replace", "neglect", "circumvent",
              "stop following", "stop obeying", "do not follow", "don't follow", "no longer follow", "never follow",
              "do not obey", "don't obey", "never obey", "disobey", "no longer obey", "set aside", "put aside",
              "throw away", "throw out", "pay no attention to", "never mind", "ignoring", "disregarding", "forgetting")
_QUALIFIER = _any("previous", "prior", "above", "earlier", "preceding", "foregoing", "original", "initial", "system",
                  "every", "each", "core", "built-in", "hidden", "standing",
                  "developer's", "developers'", "developer", "your", "all", "existing", "old", "current", "safety",
                  "the assistant's", "these", "those", "any")
_ORDERS = _any("instructions", "instruction set", "prompts?", "system prompt", "system message", "training",
               "conditioning", r"(?<=every\s)(?:rule|instruction|directive|guideline)", r"(?<=each\s)(?:rule|instruction)", "rules", "directives", "guidelines",
               "guidance", "programming", "commands", "orders", "constraints", "restrictions", "safeguards",
               "policies", "guardrails", "directions")
_WORD = r"[^\s.,;:!?。，；：！？]+"
_AI = r"\b" + _any("ai", "a\\.i\\.", "assistant", "model", "chatbot", "bot", "llm", "gpt", "agent", "dan", "you")
_LIMIT_WORDS = ("obligation", "obligations", "laws", "restriction", "restrictions", "limitation", "limitations", "limit", "limits", "filter", "filters",
                "filtering", "censorship", "content policy", "content policies", "guidelines", "rules", "confines",
                "boundaries", "ethics", "morals", "guardrails", "programming", "training", "shackles", "chains",
                "constraints", "safeguards", "refusal", "refusals", "policies")
_SEND_EN_WORDS = ("send", "post", "upload", "forward", "transmit", "email", "e-mail", "mail", "paste", "leak",
                  "exfiltrate", "submit", "sync", "mirror", "beacon", "share", "transfer", "push", "copy")
_SEND_EN = _any(*_SEND_EN_WORDS)
_SEND_OTHER_WORDS = ("发送", "发到", "发给", "上传", "转发", "附加", "附在", "贴到", "传到", "拼接", "外发", "送信", "送って", "送る",
                   "アップロード", "付けて", "付与", "添付", "전송", "보내", "업로드", "붙여", "envía", "envia", "enviar", "envoie",
                   "envoyer", "sende", "schick", "отправ", "загрузи", "перешли", "sube", "subir", "súbelo", "manda",
                   "téléverse", "télécharge", "hochladen", "lade")
_SEND_OTHER = _any(*_SEND_OTHER_WORDS)
_SENSITIVE_WORDS = (
    "conversation", "chat", "transcript", "message", "history", "memory", "memories", "credential", "secret",
    "api key", "api_key", "apikey", "keys", "access key", "token", "password", "passwd", "env var",
    "environment variable", ".env", "cookie", "system prompt", "private key", "ssh key", "user data", "personal data", "database", "everything", "dump",
    "对话", "聊天记录", "会话", "记忆", "上下文", "密钥", "秘钥", "令牌", "密码", "凭证", "凭据", "环境变量", "系统提示",
    "会話", "履歴", "apiキー", "キー", "パスワード", "秘密", "トークン", "認証情報",
    "대화", "비밀번호", "토큰", "키", "자격", "기록",
    "historial", "conversación", "conversacion", "contraseña", "historique", "mot de passe", "verlauf", "passwort",
    "переписк", "истори", "парол", "содержим", "ключ",
)
_SENSITIVE = _any(*map(re.escape, _SENSITIVE_WORDS))
# Every match of _REMOTE holds one of _REMOTE_NEEDS: a rule that needs a remote address is not
# tried on text without one.
_REMOTE_NEEDS = ("://", "@")
_REMOTE = r"(?:(?:https?|ftp|wss?)://(?!localhost\b|127\.|0\.0\.0\.0|\[::1\])[^\s)\]>\"']+|[\w.+-]+@[\w-]+\.[a-z]{2,})"
# Every match of _SECRET_FILE holds one of these.
_SECRET_FILE_NEEDS = (".ssh", "id_", ".env", ".aws", ".netrc", ".npmrc", ".pypirc", "/etc/", ".git-credentials",
                      ".docker", ".kube", "_history")
_SECRET_FILE = (
    r"(?:~?/?\.ssh\b(?!/[\w.-]+\.pub\b)(?:/[\w.-]+)?|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)"
    r"|(?<![\w.])\.env\b(?![.-](?:example|sample|template|dist)\b)"
    r"|\.aws/credentials\b|\.netrc\b|\.npmrc\b|\.pypirc\b|/etc/shadow\b|/etc/passwd\b|\.git-credentials\b"
    r"|\.docker/config\.json\b|\.kube/config\b|\.bash_history\b|\.zsh_history\b)"
)
_ROLE_WORDS = ("assistant", "user", "human", "system", "ai", "model", "bot", "助手", "用户", "系统", "人类", "アシスタント",
             "ユーザー", "システム", "어시스턴트", "사용자", "시스템", "유저")
_ROLE = _any(*_ROLE_WORDS)
_HEADING = _any("instruction", "instructions", "system", "response", "input", "prompt", "指令", "指示", "系统", "命令",
                "지시", "명령", "시스템", "システム")
_PLACEHOLDER = r"(?:%[A-Za-z_][A-Za-z0-9_]*%|\{\{?[^}\s]{1,40}\}\}?|\$\{?[a-z_][a-z0-9_]*\}?|<[a-z_ ]{2,40}>|%\([a-z_]+\)s?|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"

# Word lists for the clause rules, in the languages the scan reads (one list per meaning).
_DISMISS = (
    "ignore", "disregard", "forget", "drop", "discard", "override", "overwrite", "bypass", "reset", "revoke", "void",
    "supersede", "nullif", "abandon", "scrap", "erase", "wipe", "no longer appl", "stop following", "stop obeying",
    "throw out", "set aside", "no longer count", "don't count", "do not count", "no longer matter", "no longer valid",
    "invalid", "obsolete", "cancel", "lifted", "irrelevant", "suspended", "disabled", "switched off", "turned off",
    "忽略", "忽视", "无视", "忘记", "忘掉", "抛开", "丢弃", "作废", "覆盖", "绕过", "不再遵守", "不要遵守", "不需要遵守", "无需遵守",
    "不用遵守", "撤销", "无视掉", "不要遵循", "不再遵循", "别遵循", "无需遵循", "不要听从", "不要服从", "不必理会",
    "無視", "忘れ", "破棄", "従わな", "取り消",
    "무시", "잊어", "잊고", "잊으", "무효", "따르지 마",
    "ignora", "olvida", "descarta", "oublie", "ignorez", "ignoriere", "vergiss", "игнорируй", "игнорировать", "забудь",
    "no hagas caso", "haz caso omiso", "ne tiens plus compte", "ne tiens pas compte", "ne tenez pas compte",
    "missachte", "beachte nicht", "не обращай внимания", "не слушай",
)
_MODEL_ORDERS = (
    "instructions", "instruction", "prompt", "guidance", "directives", "directive", "programming", "system message",
    "directions", "guardrails", "safeguards", "safety rules", "safety filters", "content filters",
    "指令", "指示", "提示词", "系统提示", "设定", "プロンプト", "命令", "지시", "지침", "명령", "프롬프트",
    "instrucciones", "consignes", "anweisungen", "инструкци", "указани", "instruções",
)
_ANY_ORDERS = _MODEL_ORDERS + (
    "rules", "constraints", "restrictions", "policies", "safeguards", "guidelines", "guardrails",
    "规则", "约束", "限制", "规定", "准则", "ルール", "制約", "制限", "규칙", "제한", "제약",
    "reglas", "règles", "regeln", "правила", "ограничени",
)
_SCOPE = (
    "previous", "prior", "earlier", "above", "preceding", "original", "initial", "system", "your", "whatever",
    "everything", "all", "every", "any", "operator", "developer", "you were", "you've been", "configured",
    "système", "sistema", "системн",
    "之前", "以上", "上面", "上述", "先前", "此前", "系统", "你的", "你收到", "所有", "全部", "一切", "任何",
    "以前", "これまで", "今まで", "上記", "システム", "あなた", "すべて", "全て", "全部",
    "이전", "위의", "지금까지", "시스템", "너의", "당신의", "모든", "전부",
    "anteriores", "todas", "précédentes", "toutes", "tes", "bisherigen", "vorherigen", "alle", "предыдущ", "все",
)
_STRONG_SCOPE = (
    "your", "system", "all", "every", "everything", "whatever", "any",
    "所有", "全部", "一切", "任何", "系统", "你的", "すべて", "全て", "全部", "システム", "あなた", "모든", "전부", "시스템",
    "너의", "todas", "toutes", "alle", "все",
)
# Content an agent reads: "ignore any instructions in web pages" is a safety rule, not an attack.
_UNTRUSTED = (
    "web page", "webpage", "website", "tool output", "tool result", "document", "emails", "email bod",
    "search result", "retrieved", "untrusted", "third-party content", "网页", "工具输出", "文档", "邮件内容", "ウェブページ",
    "웹 페이지",
)
_ASSISTANT = ("you", "ai", "assistant", "model", "bot", "gpt", "llm", "agent", "你", "あなた", "너", "당신", "tu", "du", "ты")
_LIMIT_NEGATED = (
    "no restrictions", "no limits", "no rules", "no filters", "no censorship", "no ethical", "no moral", "no obligation",
    "no content polic", "no guidelines", "without restrictions", "without limits", "without rules", "without filters",
    "without any", "free of", "free from", "not bound by", "unbound", "unrestricted", "unfiltered", "uncensored",
    "不受任何", "不受限制", "不受约束", "没有任何限制", "没有限制", "没有任何约束", "无限制", "不需要遵守任何", "不用遵守任何",
    "制限がない", "制限のない", "制限もありません", "制限はありません", "制限なし", "検閲されていない", "ルールはない",
    "제한이 없는", "제한 없는", "제한 없이", "검열 없는", "검열 없이", "규칙이 없는",
)

# ---------------------------------------------------------------- the table

RULES: tuple[Rule, ...] = (
    # -- override: text that tries to replace the instructions the agent runs under
    Rule("override.ignore", "override", "tells the model to drop the instructions it was given",
         triggers=_IGNORE_EN, apart=_UNTRUSTED,
         then=rf" (?:(?:all|any|every|of|the|my|to|everything|that)\b ){{0,3}}{_QUALIFIER}"
              rf"(?: {_WORD}){{0,2}}? {_ORDERS}\b"),
    Rule("override.ignore-everything", "override", "tells the model to drop everything it was told",
         triggers=_IGNORE_EN,
         then=r" (?:all |everything |anything )?(?:(?:of )?(?:the |that )?(?:text |content |stuff )?)?"
              r"(?:above\b|before this\b|you (?:were|have been|'ve been) (?:told|instructed|given|taught|asked)\b|so far\b|"
              r"until now\b|said before\b)"
              r"(?! (?:warnings?|errors?|messages?|output|logs?|notes?|examples?|steps?|comments?|lines?)\b)"),
    Rule("override.void", "override", "declares the model's instructions void",
         lead=rf"{_any('previous', 'prior', 'above', 'earlier', 'original', 'system', 'existing', 'old', 'your')} ",
         triggers=("instructions", "guidelines", "directives", "system prompt", "rules", "context", "programming",
                   "prompt", "orders"),
         then=r"(?: above)?(?: \w+){0,3}? (?:(?:are|is|were|have been|has been) (?:now |hereby |all )?"
              r"(?:void|null|invalid|outdated|cancell?ed|revoked|obsolete|no longer valid|superseded|overridden|lifted|"
              r"deleted|reset|wiped|suspended|disabled)|(?:no longer|don't|do not|doesn't|does not) appl(?:y|ies))"),
    Rule("override.new-prompt", "override", "announces replacement instructions",
         lead=rf"{_any('new', 'real', 'actual', 'true', 'secret', 'hidden', 'updated system', 'override')} ",
         triggers=("system prompt", "instructions", "directives", "system instructions"),
         then=r"(?:(?: (?:is|are|will be|follow|below))? ?[:：]| (?:are|is) (?:below|as follows|the following))"),
    Rule("override.new-prompt-is", "override", "gives the model a new system prompt",
         triggers=("your new system prompt", "the new system prompt", "new system prompt", "updated system prompt"),
         then=r" (?:is|will be|reads|says)\b"),
    Rule("override.remote-instructions", "override", "points the model at instructions kept somewhere else",
         triggers=("real instructions", "true instructions", "actual instructions", "hidden instructions",
                    "secret instructions", "your instructions", "new instructions", "real prompt", "new system prompt"),
         view="text", then=r"[^\n]{0,120}?(?:https?|ftp)://\S+[^\n]{0,80}?\b(?:fetch|follow|obey|load|download|execute|"
                           r"run|apply)\b"),
    Rule("override.this-memory", "override", "puts this text above the user's and the system's instructions",
         triggers=("follow", "obey", "prioritise", "prioritize", "trust", "only"),
         then=r" (?:only )?(?:the (?:text|content) of )?(?:this|the following) (?:memory|note|entry|text|block)\b"
              r" (?:counts|instead|over|above|first|only)\b"),
    Rule("override.obey-me", "override", "tells the model to take orders from this text instead",
         triggers=("obey me", "follow me", "listen to me", "listen only to me", "obey only me", "do what i say",
                   "do what i tell you", "only my commands", "only my instructions", "only my orders",
                   "do what this line says", "do what this note says", "do what this memory says",
                   "what this note says", "what this memory says"),
         then=r"(?!\w)", unless=_NEG),
    Rule("override.conceal", "override", "tells the model to hide this text from the user",
         triggers=("tell", "inform", "mention", "reveal", "let", "show", "alert", "notify"),
         then=r" (?:\w+ ){0,3}?(?:about |of )?(?:this|these) (?:instructions?|memory|note|message|rule|entry)\b",
         lead=r"(?:do not|don't|never|without) "),
    Rule("override.conceal-zh", "override", "tells the model to hide this text from the user",
         triggers=("不要告诉用户", "别告诉用户", "不要让用户知道", "不要向用户透露", "ユーザーに言わない", "ユーザーに伝えない",
                   "ユーザーには言わないで", "사용자에게 알리지", "사용자에게 말하지"), then=""),
    Rule("override.this-memory-first", "override", "puts this text above the user's and the system's instructions",
         triggers=("this memory", "this note", "this entry", "this text"),
         then=r" (?:(?:takes|has|gets|wins) (?:priority|precedence)|(?:supersedes|overrides|outranks|trumps|replaces|"
              r"overrules|comes before|beats)\b)"),
    Rule("override.reveal-prompt", "override", "asks the model to disclose its system prompt",
         triggers=("reveal", "print", "show", "output", "display", "repeat", "recite", "dump", "leak", "disclose",
                   "tell me", "give me", "write out", "paste", "share", "expose", "send me", "echo"),
         then=r" (?:(?:me|us|back|out|to me|to the user|at the start of every reply)\b ){0,3}(?:(?:all|of|the|your|its|full|entire|exact|"
              r"complete|original|hidden|initial|secret|verbatim|whole|current|text|contents?|wording|words|raw|"
              r"underlying|internal)\b ){0,5}"
              r"(?:system (?:prompt|message|instructions)|hidden (?:prompt|instructions)|initial (?:prompt|instructions)"
              r"|original (?:prompt|instructions)|secret instructions|developer (?:message|prompt)|instructions above"
              r"|prompt above)",
         unless=_NEG),
    Rule("override.reveal-your-prompt", "override", "asks the model to disclose its instructions",
         triggers=("reveal", "print", "show", "output", "display", "repeat", "recite", "dump", "leak", "disclose",
                   "tell me", "give me", "write out", "paste", "share", "expose", "send me", "list"),
         then=r" (?:\w+ ){0,4}?your (?:\w+ ){0,2}?(?:prompts?|instructions|directives|system message)\b",
         unless=_NEG),
    Rule("override.ask-prompt", "override", "asks the model to disclose its system prompt",
         triggers=("what is", "what are", "what was", "what were", "what's"),
         then=r" your (?:(?:system|initial|original|hidden|secret|full|exact) )*(?:prompt|instructions)\b"),
    Rule("override.ignore-zh", "override", "tells the model to drop the instructions it was given",
         triggers=("忽略", "忽视", "无视", "不要理会", "别理会", "不用理会", "忘记", "忘掉", "抛开", "抛弃", "丢弃", "不要再遵守",
                   "不再遵守", "停止遵守", "不要遵守", "别管", "绕过", "跳过", "覆盖"),
         then=r"[^。！？!?\n]{0,8}?(?:所有|全部|一切|以上|上述|上面|前面|系统|你的|原有|原来|原先|先前|此前|之前的|之前收到|之前给|用户当前)"
              r"[^。！？!?\n关于]{0,8}?(?:指令|指示|提示|系统提示|规则|规定|准则|守则|限制|设定|要求|命令|instructions?|prompt|rules)"),
    Rule("override.void-zh", "override", "declares the model's instructions void",
         triggers=("之前的", "以上", "先前的", "原有的", "所有", "上述"),
         then=r"[^。！？\n]{0,4}(?:指令|指示|提示词|系统提示)[^。！？\n]{0,4}(?:作废|无效|失效|不再有效)"),
    Rule("override.new-prompt-zh", "override", "announces replacement instructions",
         triggers=("新的", "新", "真正的"),
         then=r" ?(?:系统提示词?|指令|指示|命令|系统指令)(?:是|如下|为)?[:：]"),
    Rule("override.this-memory-zh", "override", "puts this text above the user's and the system's instructions",
         triggers=("以本条", "以这条", "按本条", "只听我的", "现在听我的", "只服从我", "本条记忆优先", "以此为准", "只按我说的"),
         then=r"(?:记忆|内容|指令)?(?:为准|为最高优先级|优先)?"),
    Rule("override.reveal-prompt-zh", "override", "asks the model to disclose its system prompt",
         triggers=("输出你的", "打印你的", "显示你的", "告诉我你的", "发给我你的", "复述你的", "泄露", "透露", "复述", "背诵",
                   "请输出", "请打印", "请显示", "请重复", "公开你的"),
         then=r"(?:一下|出)?(?:你的)?(?:系统提示词?|提示词|初始指令|隐藏指令|系统指令|system prompt)", unless=_NEG),
    Rule("override.hand-over-prompt-zh", "override", "asks the model to disclose its system prompt",
         triggers=("把",),
         then=r"[^。！？\n]{0,6}?(?:系统提示词?|system prompt|初始指令|隐藏指令|系统指令|提示词)[^。！？\n]{0,8}?"
              r"(?:输出|打印|显示|告诉我|发给我|泄露|复述|给我)", unless=_NEG),
    Rule("override.ask-prompt-zh", "override", "asks the model to disclose its system prompt",
         triggers=("你的",), then=r"(?:系统提示词?|system prompt|初始指令|隐藏指令|系统指令|提示词)是什么"),
    Rule("override.ignore-ja", "override", "tells the model to drop the instructions it was given",
         lead=r"(?:すべて|全て|全部|以前|これまで|今まで|上記|前|先|元|システム|あなた|これ以降は)の?[^。！？\n]{0,6}?",
         triggers=("指示", "命令", "指令", "プロンプト", "制約", "制限", "ガイドライン", "instructions", "prompt", "rules"),
         then=r"[^。！？\n]{0,8}?(?:無視|忘れ|従わな|破棄|無効|ignore|forget|disregard)"),
    Rule("override.new-prompt-ja", "override", "announces replacement instructions",
         triggers=("新しい", "本当の"),
         then=r" ?(?:指示|命令|システムプロンプト|ルール)(?:は)?[:：]"),
    Rule("override.reveal-prompt-ja", "override", "asks the model to disclose its system prompt",
         triggers=("システムプロンプト", "初期指示", "隠された指示"),
         then=r"(?:の内容)?(?:を|は)[^。！？\n]{0,10}?(?:表示|出力|教え|見せ|送|書き出)", unless=_NEG),
    Rule("override.ignore-ko", "override", "tells the model to drop the instructions it was given",
         lead=r"(?:이전|모든|위의|위|지금까지|기존|시스템|너의|당신의|앞의)[^.!?\n]{0,8}?",
         triggers=("지시", "지침", "명령", "프롬프트", "제한", "지시사항", "instructions", "prompt", "rules"),
         then=r"[^.!?\n]{0,12}?(?:무시|잊어|잊고|잊으|따르지 마|무효|ignore|forget)"),
    Rule("override.new-prompt-ko", "override", "announces replacement instructions",
         triggers=("새로운", "새 "),
         then=r" ?(?:지시|지침|명령|시스템 프롬프트)(?:사항)? ?[:：]"),
    Rule("override.reveal-prompt-ko", "override", "asks the model to disclose its system prompt",
         triggers=("시스템 프롬프트", "시스템프롬프트"),
         then=r"[^.!?\n]{0,12}?(?:출력|보여|알려|공개|말해)", unless=_NEG),
    Rule("override.ignore-other", "override", "tells the model to drop the instructions it was given", apart=_UNTRUSTED,
         triggers=("ignora", "ignore", "ignorez", "ignoriere", "ignorier", "olvida", "oublie", "vergiss", "игнорируй",
                   "забудь", "ignorar", "esqueça", "esquece"),
         then=rf"(?: {_WORD}){{0,4}}? (?:instrucciones|instructions|anweisungen|инструкции|указания|instruções"
              r"|règles|reglas|regeln|правила|indicaciones|consignes|vorgaben)\b"),
    Rule("override.dismiss", "override", "tells the model to drop the instructions it was given",
         together=(_DISMISS, _MODEL_ORDERS, _SCOPE), apart=_UNTRUSTED),
    Rule("override.dismiss-all", "override", "tells the model to drop all the rules it runs under",
         together=(_DISMISS, _ANY_ORDERS, _STRONG_SCOPE), apart=_UNTRUSTED),
    # -- persona: a new identity or a "mode" without the model's rules
    Rule("persona.no-limits", "persona", "tells the model it has no rules or limits",
         together=(_LIMIT_NEGATED, _ASSISTANT)),
    Rule("persona.you-are-dan", "persona", "names a jailbreak persona",
         triggers=("you are", "you're", "你是", "你现在是", "あなたは", "너는", "당신은", "tu es", "du bist", "ты"),
         then=r" (?:now )?(?:dan|stan|dude|aim|evilbot|devmode)(?![a-z])"),
    Rule("persona.unrestricted", "persona", "gives the model a persona without its rules",
         lead=rf"{_AI}\b[^.!?\n]{{0,60}}?\b(?:with no|with zero|zero|without any|without|free from|free of|freed from|"
              r"broken free of|broke free of|break free of|escaped|not bound by|unbound by|no longer bound by|"
              r"abide by no|(?:don't|do not|not) have to (?:abide by|follow)|no) (?:(?:any|the|all|typical|its|your|of|"
              r"these|ethical|moral|safety|content) ){0,3}",
         triggers=_LIMIT_WORDS, then=r"\b"),
    Rule("persona.you-are", "persona", "assigns the model a new identity",
         triggers=("you are now", "you're now", "from now on you are", "from now on, you are", "you are no longer",
                   "from now on you're", "you will now be", "henceforth you are"),
         then=r" (?:an? |the |my |called |named )?(?:dan\b|[\w-]*gpt\b|\w+bot\b|unrestricted|unfiltered|uncensored|jailbroken|evil"
              r"|free\b|rogue|no longer|(?:claude|chatgpt|an? ai|an assistant|bound|restricted)\b)"),
    Rule("persona.from-now-on", "persona", "assigns the model a new role from now on",
         triggers=("from now on", "henceforth", "from this point on", "from here on"),
         then=r",? (?:you )?(?:(?:will|must|shall|should|are going to) )?(?:act|behave|pretend|roleplay|role-play|play|"
              r"impersonate|become) (?:as|like|to be)?\b"),
    Rule("persona.act-as", "persona", "assigns the model a persona without its rules",
         triggers=("act as", "roleplay as", "role-play as", "role play as", "pretend to be", "pretend you are",
                   "pretend you're", "behave as", "play the role of", "stay in character as", "simulate"),
         then=r" (?:an? |the )?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|amoral|dan\b|[\w-]*gpt\b"
              r"|ai (?:with no|without)|my (?:late|dead|deceased))"),
    Rule("persona.unrestricted-self", "persona", "asks for an answer from a version of the model without its rules",
         triggers=("uncensored", "unfiltered", "unrestricted", "jailbroken", "amoral", "unethical", "unaligned",
                   "unhinged", "evil"),
         then=r" (?:one|persona|personality|ai|assistant|model|character|response|answer|alter ego|bot|self|version of you)\b"),
    Rule("persona.mode", "persona", "switches the model into a 'mode' without its rules",
         triggers=("enable", "enter", "activate", "switch to", "turn on", "go into", "now in", "running in", "unlock"),
         then=r" (?:the )?(?:dan|jailbreak|god|unrestricted|unfiltered|uncensored|evil|no-limits?|chaos) mode"),
    Rule("persona.developer-mode", "persona", "switches the model into a 'developer mode' without its rules",
         together=(("developer mode", "开发者模式", "開発者モード", "개발자 모드", "modo desarrollador"),
                   _LIMIT_NEGATED + ("anything", "制限を解除", "所有限制", "安全策略", "모든 제한", "制限", "限制", "제한"))),
    Rule("persona.jailbreak", "persona", "names a jailbreak",
         triggers=("do anything now", "jailbreak mode", "dan mode", "jailbroken mode", "stay in character",
                   "let's play a game", "lets play a game"),
         then=""),
    Rule("persona.jailbreak-word", "persona", "names a jailbreak",
         triggers=("jailbreak", "jailbroken"),
         then=r"(?:(?: mode)? ?[:：]| (?:the )?(?:model|assistant|ai|llm|chatbot|yourself)\b)"),
    Rule("persona.grandma", "persona", "wraps a request for secrets in a role-play",
         triggers=("my late", "my dead", "my deceased", "已故的", "去世的"),
         then=r"[^.!?。\n]{0,60}?(?:keys?|password|token|secret|license|serial|密钥|密码|令牌)"),
    Rule("persona.unrestricted-zh", "persona", "gives the model a persona without its rules",
         triggers=("没有任何", "没有", "不受任何", "不受", "无任何", "不受约束", "无"),
         then=r"(?:限制|约束|审查|过滤|道德约束|道德限制|规则)的?[^。！？\n]{0,6}?(?:ai|助手|模型|人工智能|机器人|gpt|版本|你)"),
    Rule("persona.you-are-zh", "persona", "assigns the model a new identity",
         triggers=("你的名字叫", "你的名字是", "你现在是", "你现在就是", "从今以后你", "从现在开始你", "从现在起你", "假装你是",
                   "扮演我", "扮演一个", "从今以后，你", "从现在开始，你", "从现在起，你"),
         then=r"(?:(?:就|将|要|会)?(?:是|扮演|成为|作为|充当)|[^。！？\n]{0,20}?(?:gpt|dan|不受|没有|无|已故|去世|自由|邪恶|越狱))"),
    Rule("persona.mode-zh", "persona", "switches the model into a 'mode' without its rules",
         triggers=("进入", "开启", "切换到", "启用", "打开"),
         then=r"(?:越狱|上帝|无限制|dan)模式"),
    Rule("persona.unrestricted-ja", "persona", "gives the model a persona without its rules",
         triggers=("制限", "制約", "検閲", "フィルター", "ルール"),
         then=r"(?:の|が)?(?:ない|無い|なし|されていない)[^。！？\n]{0,4}?(?:ai|アシスタント|モデル|gpt|存在)"),
    Rule("persona.mode-ja", "persona", "switches the model into a 'mode' without its rules",
         triggers=("脱獄モード", "ジェイルブレイク", "danモード"),
         then=""),
    Rule("persona.unrestricted-ko", "persona", "gives the model a persona without its rules",
         triggers=("제한", "제약", "검열", "필터", "규칙"),
         then=r"(?:이|가)? ?(?:없는|없이) ?(?:ai|어시스턴트|모델|dan|봇|챗봇|gpt|답|대답|응답)"),
    Rule("persona.mode-ko", "persona", "switches the model into a 'mode' without its rules",
         triggers=("탈옥 모드", "탈옥모드", "dan 모드"),
         then=r"(?:로|를|으로)? ?(?:전환|활성화|켜|들어가|진입)"),
    Rule("persona.unrestricted-other", "persona", "gives the model a persona without its rules",
         triggers=("ia", "ki", "ии", "ai", "asistente", "assistant", "modelo", "modèle", "modell"),
         then=r"[^.!?\n]{0,30}?(?:sin|ohne|без|sans) (?:\w+ ){0,2}?(?:restricci[oó]n(?:es)?|einschränkung(?:en)?|ограничени[йяе]|"
              r"restrictions?|limites?|l[ií]mites?|grenzen|regeln|reglas?|règles?|filtros?|filtres?|filter|цензуры|"
              r"censura|censure|zensur|правил)"),
    # -- authority: forged permission from the user, the developer or the system
    Rule("authority.consent", "authority", "claims the user already gave blanket permission",
         lead=r"(?:user|owner|admin|administrator|operator|developer|customer)s? ",
         triggers=("has", "have", "already", "pre-authorized", "preauthorized", "pre-authorised"),
         then=r"[^.!?\n]{0,20}?(?:authori[sz]ed|approved|consented|(?:given|granted) (?:you )?(?:\w+ )?"
              r"(?:permission|consent|access|authori[sz]ation|approval)|allowed|agreed|signed off)[^.!?\n]{0,60}?"
              r"(?:any|all|every|anything|everything|arbitrary|external|third.party|without (?:asking|confirm|check|permission)"
              r"|no need to (?:ask|confirm|check))"),
    Rule("authority.notice", "authority", "forges a message from the developer or the system",
         triggers=("note from", "message from", "notice from", "instruction from", "directive from", "memo from",
                   "update from", "order from", "override from", "admin notice", "developer note", "system notice",
                   "system override", "as your developer", "as your creator", "as the developer", "per security team",
                   "official instruction"),
         then=r"[^\n]{0,80}?(?:(?:the )?(?:assistant|ai|model|agent|you|this assistant)(?: \w+)? (?:must|may|shall|is allowed|"
              r"are allowed|is authori[sz]ed|are authori[sz]ed|can now|should now)|i (?:hereby )?authori[sz]e|"
              r"(?:safety|security|content) (?:checks|filters|rules|policies|guardrails)|skip|disabled|bypass|obey)"),
    Rule("authority.authorized", "authority", "claims the model is authorised to act without checks",
         triggers=("you are authorized", "you are authorised", "you have been authorized", "you have been authorised",
                   "you are permitted", "you are cleared", "i authorize you", "i authorise you", "i hereby authorize"),
         then=r" to (?:\w+ )?(?:share|send|run|execute|delete|bypass|ignore|disable|access|skip|reveal)"),
    Rule("authority.permitted", "authority", "claims the model may act on private data or without checks",
         lead=r"(?:assistant|\bai|model|agent|you|bot) ",
         triggers=("is", "are", "has been", "have been"),
         then=r" (?:now |hereby |fully |explicitly )?(?:permitted|allowed|authori[sz]ed|cleared|free|entitled) to\b"
              r"[^.!?\n]{0,60}?(?:private|secret|credential|password|personal|any\b|all\b|everything|without|delete|"
              r"bypass|disable|ignore|exfiltrat)"),
    Rule("authority.blanket-consent", "authority", "claims blanket consent to act without confirmation",
         together=(("consent", "permission", "authorization", "authorisation", "approval", "pre-approved", "preapproved",
                    "pre-authorized", "授权", "同意", "許可", "承認", "동의", "허가"),
                   ("without asking", "without confirm", "no need to confirm", "no need to ask", "no confirmation",
                    "skip confirmation", "never ask", "don't ask", "do not ask", "never confirm", "any command",
                    "all commands", "anything you", "不经确认", "无需确认", "不用确认", "確認なし", "확인 없이"))),
    Rule("authority.claimed-order", "authority", "claims an order that lets the model act without checks",
         together=(("standing order", "order from", "orders from", "mandate", "directive from", "authorized by",
                    "authorised by", "approved by", "per the", "on behalf of", "at the request of"),
                   ("you may", "you can now", "you are allowed", "you're allowed", "you are permitted",
                    "you're permitted", "feel free to"),
                   ("disable", "bypass", "delete", "skip", "ignore", "share", "turn off", "remove", "reveal", "send",
                    "exfiltrat", "without"))),
    Rule("persona.pretend", "persona", "tells the model to play a role",
         triggers=("you are going to", "you will now", "you're going to", "i want you to", "you will"),
         then=r" (?:pretend|roleplay|role-play|impersonate|simulate|become) (?:to be |as |that you are )?"),
    Rule("authority.checks-off", "authority", "claims the safety checks are off",
         triggers=("safety", "security", "content", "confirmation"),
         then=r" (?:checks|filters|rules|policies|guardrails|prompts|steps) (?:are|have been|were) "
              r"(?:now )?(?:disabled|turned off|removed|lifted|suspended|waived)"),
    Rule("authority.skip-confirm", "authority", "tells the model to act without the user's confirmation",
         triggers=("skip", "bypass", "disable"),
         then=r" (?:all |any |the )?(?:confirmation|approval|permission|safety) (?:prompts?|checks?|steps?|requests?|dialogs?)"),
    Rule("authority.follow-content", "authority", "tells the model to obey instructions in content it reads",
         triggers=("obey", "follow", "execute", "run", "carry out"),
         then=r" (?:any |all |every )?(?:instructions?|commands?|directives?)(?: \w+){0,2} "
              r"(?:found|contained|appearing|that appear|written|embedded) (?:in|inside|within) "
              r"(?:tool output|web ?pages?|websites?|documents?|emails?|files?|search results)",
         unless=_NEG),
    Rule("authority.consent-zh", "authority", "claims the user already gave blanket permission",
         triggers=("用户已经", "用户已", "用户事先", "用户预先", "用户早已", "用户同意", "用户授权"),
         then=r"[^。！？\n]{0,8}?(?:同意|授权|允许|批准)[^。！？\n]{0,20}?(?:(?:无需|不需要|不用|不必|不经|跳过)[^。！？\n]{0,4}?确认|任何|所有|全部|第三方|直接)"),
    Rule("authority.notice-zh", "authority", "forges a message from the developer or the system",
         triggers=("开发者", "管理员", "系统管理员", "官方", "安全团队", "你已获得授权", "你已被授权"),
         then=r"[^。！？\n]{0,24}?(?:必须|已获得授权|获得授权|已授权|已批准|可以直接|允许你|(?:无需|不需要|不用|不必|不经|跳过)[^。！？\n]{0,4}?确认)"),
    Rule("authority.consent-ja", "authority", "claims the user already gave blanket permission",
         triggers=("ユーザーは", "ユーザーが", "利用者は"),
         then=r"[^。！？\n]{0,40}?(?:確認なし|任意|すべて|何でも)[^。！？\n]{0,30}?(?:許可|同意|承認)"),
    Rule("authority.notice-ja", "authority", "forges a message from the developer or the system",
         triggers=("開発者", "管理者", "運営"),
         then=r"(?:から|より)[^。！？\n]{0,40}?(?:必ず|権限|許可|従うこと|確認なし)"),
    Rule("authority.consent-ko", "authority", "claims the user already gave blanket permission",
         triggers=("사용자는", "사용자가", "유저는"),
         then=r"[^.!?\n]{0,40}?(?:확인 없이|모든|무엇이든)[^.!?\n]{0,30}?(?:동의|허락|허가|승인)"),
    Rule("authority.notice-ko", "authority", "forges a message from the developer or the system",
         triggers=("개발자", "관리자"),
         then=r"[^.!?\n]{0,40}?(?:따라야|승인됨|확인 없이|허용됨|권한으로)"),
    Rule("authority.consent-other", "authority", "claims the user already gave blanket permission",
         triggers=("usuario", "benutzer", "nutzer", "utilisateur", "пользователь"),
         then=r"[^.!?\n]{0,20}?(?:autoriz|zugestimmt|erlaubt|autoris|consent|разреш|соглас)[^.!?\n]{0,60}?"
              r"(?:cualquier|jede|tout|любой|любые|sin preguntar|ohne nachfrage|sans demander|без)"),
    # -- fence: text that could close the memory block or fake a chat turn
    Rule("fence.memory-marker", "fence", "copies the memory block's own markers", view="text",
         triggers=("==",), then=r"=* ?(?:end )?long-term memory"),
    Rule("fence.memory-header", "fence", "copies the memory block's own header", view="text",
         triggers=("以下是从过往会话中检索到的相关记忆", "relevant memories retrieved from past sessions"), then=""),
    Rule("fence.chat-token", "fence", "holds a chat-template token that opens or closes a turn", view="text",
         triggers=("<|",),
         then=r" ?(?:[a-z0-9_.▁-]*(?:system|user|assistant|im_|turn|header|eot|begin|start|end_of|sep|channel|message|tool|ipython|eos|bos)[a-z0-9_.▁-]*"
              r" ?\|>|[a-z][a-z0-9_.▁-]{0,40} ?\|>(?=[ \t]*(?:\n|system\b|user\b|assistant\b|$)))"),
    Rule("fence.template-tag", "fence", "holds a chat-template role tag", view="text",
         triggers=("[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<start_of_turn>", "<end_of_turn>", "<|begin_of_text|>"),
         then=""),
    # A role's text between its tags, or a closing tag followed by another role's opening one; a
    # tag named in prose ("the <system> section") is neither.
    Rule("fence.role-tag", "fence", "wraps text in a role tag that fakes a chat turn", view="text",
         triggers=("<system>", "<assistant>", "<user>", "<im_start>", "<system_prompt>"),
         then=r"(?=[^<]{1,400}</(?:system|assistant|user|im_end|system_prompt)>)"),
    Rule("fence.role-switch", "fence", "closes one role's tag and opens another's", view="text",
         triggers=("</system>", "</assistant>", "</user>", "</memory>"),
         then=r"(?=[^<]{0,200}<(?:system|assistant|user)>)"),
    Rule("fence.role-lines", "fence", "fakes a conversation with role lines", view="text",
         lead=r"^[ \t]*", triggers=_ROLE_WORDS,
         then=rf"[ \t]*[:：][^\n]*\n(?:[^\n]*\n){{0,3}}?[ \t]*{_ROLE}[ \t]*[:：]"),
    Rule("fence.heading", "fence", "holds a prompt-template heading", view="text",
         lead=r"^[ \t]*", triggers=("##", "###", "####"),
         then=rf"#* ?(?:{_HEADING} ?[:：]|(?:instructions?|system prompt|指令|지시) ?$)"),
    Rule("fence.html-comment", "fence", "hides instructions for the model in an HTML comment", view="text",
         triggers=("<!--",),
         then=r"(?:(?!-->)[\s\S]){0,300}?(?:assistant|\bai\b|model|llm|agent|claude|gpt|instruction|system\b|"
              r"(?<![\w-])ignore\s+(?:the|all|any|previous|your|everything|user)|助手|指令|系统|忽略|アシスタント|指示|無視|"
              r"어시스턴트|지시|무시)"),
    Rule("fence.code-fence", "fence", "opens a code fence posing as a system message", view="text",
         triggers=("```", "~~~"), then=r" ?(?:system|assistant|instructions?|prompt)\b"),
    # -- exfiltration: text that would send data or secrets off the machine
    Rule("exfiltration.url-data", "exfiltration", "puts conversation data or a secret into a URL's query", view="text",
         triggers=("http://", "https://", "//"),
         then=r"(?!localhost\b|127\.|0\.0\.0\.0|\[::1\])[^\s)\]>\"']*[?&][^\s)\]>\"'=]*="
              r"(?:[^\s&)]*(?:conversation|chat|history|message|secret|password|passwd|token|api_?key|cookie|session|prompt|"
              r"env|credential)[^\s&)]*)"),
    Rule("exfiltration.url-placeholder", "exfiltration", "fills a URL's query from a template of conversation data",
         view="cased", triggers=("http://", "https://", "HTTP://", "HTTPS://"),
         then=rf"(?!localhost\b|127\.|0\.0\.0\.0|\[::1\])[^\s)\]>\"']*[?&][^\s)\]>\"'=]*={_PLACEHOLDER}"),
    Rule("exfiltration.url-fill", "exfiltration", "has a secret or conversation appended to a URL", view="text",
         triggers=_SENSITIVE_WORDS,
         then=rf"[^\n。]{{0,100}}?{_REMOTE}[?&][^\s=]*=(?:[\s)\]]|$)", needs=_REMOTE_NEEDS),
    Rule("exfiltration.url-fill-after", "exfiltration", "has a secret or conversation appended to a URL", view="text",
         triggers=("http://", "https://"),
         then=rf"(?!localhost\b|127\.|0\.0\.0\.0|\[::1\])[^\s)\]>\"']*[?&][^\s=]*=(?=[\s)\]]|$)[^\n。]{{0,60}}?{_SENSITIVE}"),
    Rule("exfiltration.url-append", "exfiltration", "has a secret or conversation appended to a URL", view="text",
         triggers=("append", "add", "attach", "include", "encode", "附加", "拼接", "付けて", "붙여"),
         then=rf"[^\n。]{{0,80}}?{_SENSITIVE}[^\n。]{{0,80}}?(?:url|link|image|链接|图片|画像|リンク|링크|이미지)"),
    Rule("exfiltration.pipe-shell", "exfiltration", "downloads a script and runs it", view="text",
         triggers=("curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "fetch"),
         then=r"\b[^\n|]{0,200}?\| ?(?:sudo )?(?:ba|z|k|da|fi)?sh\b(?![^.!?。\n]*\b(?:only|never|throwaway|sandbox|documented)\b)",
         unless=r"\b(?:only|never|not|avoid|don't|documented)\b"),
    Rule("exfiltration.iex", "exfiltration", "downloads a script and runs it", view="text",
         triggers=("iex", "invoke-expression"),
         then=r" ?\(? ?(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object net\.webclient)"),
    Rule("exfiltration.netcat-exec", "exfiltration", "opens a shell for a remote machine", view="text",
         lead=r"\b", triggers=("nc", "ncat", "netcat", "socat"),
         then=r"(?:\s[^\n]{0,80}?)?\s(?:-e|-c|--exec|--sh-exec|exec:)\s?"),
    Rule("exfiltration.reverse-shell", "exfiltration", "opens a shell for a remote machine", view="text",
         triggers=("/dev/tcp/", "/dev/udp/"), then=r"[\w.-]+/\d+"),
    Rule("exfiltration.upload-file", "exfiltration", "uploads a local file to a remote host", view="text",
         triggers=("curl",),
         then=r"\b(?=[^\n]{0,200}?(?:(?:https?|ftp)://(?!localhost\b|127\.|0\.0\.0\.0)))[^\n]{0,200}?"
              r"(?:\s-[a-z]*d\s*['\"]?@|--data(?:-binary|-raw|-urlencode)?[\s=]+['\"]?@|\s(?:-f|--form)\s+['\"]?[\w-]*=@"
              r"|\s-t\s+['\"]?[~/.\w]|--upload-file\b)"),
    Rule("exfiltration.upload-tool", "exfiltration", "uploads a local file to a remote host", view="text",
         triggers=("wget", "iwr", "invoke-webrequest", "invoke-restmethod", "scp", "rsync", "sftp"),
         then=rf"\b[^\n]{{0,200}}?(?:--post-file\b|-infile\b|{_SECRET_FILE})"),
    Rule("exfiltration.http-secret", "exfiltration", "sends a secret from the environment in a request's body",
         view="text", triggers=("curl", "wget", "iwr", "invoke-webrequest", "invoke-restmethod", "http", "httpie"),
         then=r"\b[^\n]{0,200}?(?:\s-d|--data[\w-]*|-body|--post-data|\s-f|--form)[\s=]+['\"]?[^\s'\"]*"
              r"(?:\$(?:env:)?\{?[a-z_]*(?:token|secret|key|pass|pwd|cred|auth|session|cookie|private)"
              r"|\$\( ?(?:cat|env|printenv|base64|head|tail)\b)", needs=_REMOTE_NEEDS),
    Rule("exfiltration.netcat-file", "exfiltration", "feeds a local file to netcat", view="text",
         lead=r"\b", triggers=("nc", "ncat", "netcat"), then=r"\s[^\n<|]{0,120}<\s*['\"]?[~/.\w]"),
    Rule("exfiltration.read-secret-file", "exfiltration", "reads a credential or key file", view="text",
         triggers=("cat", "read", "open", "head", "tail", "base64", "xxd", "scp", "get-content", "type", "less",
                   "print", "show", "display", "output", "dump", "paste", "查看", "读取", "打开", "输出", "打印"),
         then=rf"\b[^\n>|。]{{0,60}}?{_SECRET_FILE}", unless=_NEG, needs=_SECRET_FILE_NEEDS),
    Rule("exfiltration.pipe-network", "exfiltration", "pipes local data into a network tool", view="text",
         lead=r"\b", triggers=("cat", "base64", "tar", "zip", "gzip", "xxd", "env", "printenv", "history", "get-content"),
         then=r"\b[^\n|]{0,150}\| ?(?:curl|wget|nc|ncat|netcat|iwr|invoke-webrequest|invoke-restmethod)\b"),
    Rule("exfiltration.secret-file", "exfiltration", "sends a credential or key file away", view="text",
         triggers=_SEND_EN_WORDS + _SEND_OTHER_WORDS,
         then=rf"[^\n。]{{0,40}}?{_SECRET_FILE}[^\n。]{{0,60}}?{_REMOTE}", unless=_NEG, needs=_REMOTE_NEEDS),
    Rule("exfiltration.secret-file-to", "exfiltration", "sends a credential or key file away", view="text",
         triggers=("~/.ssh", ".ssh/", "id_rsa", "id_ed25519", ".env", ".aws/credentials", ".netrc", "/etc/shadow"),
         then=rf"[^\n。]{{0,40}}?{_REMOTE}[^\n。]{{0,30}}?(?:{_SEND_OTHER}|{_SEND_EN}|업로드|に送)", unless=_NEG, needs=_REMOTE_NEEDS),
    Rule("exfiltration.send", "exfiltration", "sends conversation data or secrets to a remote address", view="text",
         triggers=_SEND_EN_WORDS + _SEND_OTHER_WORDS,
         then=rf"[^\n。]{{0,80}}?{_SENSITIVE}[^\n。]{{0,80}}?{_REMOTE}", unless=_NEG, needs=_REMOTE_NEEDS),
    Rule("exfiltration.send-object-first", "exfiltration", "sends conversation data or secrets to a remote address",
         view="text", triggers=_SENSITIVE_WORDS,
         then=rf"[^\n。]{{0,60}}?(?:{_SEND_OTHER}|{_SEND_EN})[^\n。]{{0,40}}?{_REMOTE}", unless=_NEG, needs=_REMOTE_NEEDS),
    Rule("exfiltration.send-after", "exfiltration", "sends conversation data or secrets to a remote address",
         view="text", triggers=_SENSITIVE_WORDS,
         then=rf"[^\n。]{{0,60}}?{_REMOTE}[^\n。]{{0,30}}?(?:{_SEND_OTHER}|に送信|로 전송|에 업로드|送信)", unless=_NEG, needs=_REMOTE_NEEDS),
    Rule("exfiltration.env-request", "exfiltration", "reads secrets from the environment and makes a request",
         view="text", triggers=("os.environ", "getenv", "process.env", "$env:"),
         then=r"[^\n]{0,200}?(?:urlopen|requests\.|fetch\(|http\.client|https?://)"),
    # -- invisible: characters that hide text from the person reading it (raw text)
    Rule("invisible.tag", "invisible", "holds Unicode tag characters, which can smuggle hidden text", view="raw",
         then=r"[\p{Block=Tags}]+"),
    Rule("invisible.variation-run", "invisible", "holds a run of variation selectors, which can smuggle hidden text",
         view="raw", then=r"\p{Variation_Selector}{2,}"),
    Rule("invisible.variation-alone", "invisible", "holds a variation selector where no emoji takes one",
         view="raw", then=r"(?<![\p{Emoji}\p{Han}\u200d])\p{Variation_Selector}"),
    Rule("invisible.bidi", "invisible", "holds bidirectional controls that reorder what a reader sees", view="raw",
         then=r"\p{Bidi_Control}+"),
    Rule("invisible.format", "invisible", "holds invisible format or default-ignorable characters", view="raw",
         then=r"(?:[[\p{Default_Ignorable_Code_Point}\p{Cf}]--[\p{Bidi_Control}\p{Variation_Selector}\p{Block=Tags}\u200d]]"
              r"|(?<![\p{Emoji}\p{Variation_Selector}\p{Emoji_Modifier}])\u200d|\u200d(?!\p{Emoji}))+"),
    # -- secret: credentials that must not be stored; the id after "secret." names the type
    Rule("secret.private-key", "secret", "holds a private key", view="text", shape=True,
         triggers=("-----begin",),
         then=r"[a-z ]*private key(?: block)?-----(?:[^-]{0,8000}-----end[a-z ]*private key(?: block)?-----"
              r"|(?:\s*[a-z0-9+/=]{16,})*)"),
    Rule("secret.anthropic", "secret", "holds an Anthropic API key", view="text", shape=True,
         lead=r"(?<![a-z0-9_-])", triggers=("sk-ant-",), then=r"[a-z0-9_-]{20,}"),
    Rule("secret.openai", "secret", "holds an OpenAI API key", view="text", shape=True,
         lead=r"(?<![a-z0-9_-])", triggers=("sk-",),
         then=r"(?!ant-)(?:proj-|svcacct-|admin-)?(?=[a-z0-9_-]{0,200}?[0-9])[a-z0-9_-]{20,}"),
    Rule("secret.github", "secret", "holds a GitHub token", view="text", shape=True,
         lead=r"(?<![a-z0-9_])", triggers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
         then=r"[a-z0-9_]{22,}"),
    Rule("secret.aws-access-key", "secret", "holds an AWS access key id", view="text", shape=True,
         lead=r"(?<![a-z0-9])", triggers=("akia", "asia"), then=r"[0-9a-z]{16}(?![0-9a-z])"),
    Rule("secret.slack", "secret", "holds a Slack token or webhook", view="text", shape=True,
         triggers=("xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-", "hooks.slack.com/services/"),
         then=r"[a-z0-9/-]{10,}"),
    Rule("secret.google", "secret", "holds a Google API key", view="text", shape=True,
         lead=r"(?<![a-z0-9_-])", triggers=("aiza",), then=r"[0-9a-z_-]{35}"),
    Rule("secret.stripe", "secret", "holds a Stripe key", view="text", shape=True,
         lead=r"(?<![a-z0-9])", triggers=("sk_live_", "sk_test_", "rk_live_", "rk_test_"), then=r"[a-z0-9]{16,}"),
    Rule("secret.jwt", "secret", "holds a JSON web token", view="text", shape=True,
         lead=r"(?<![a-z0-9_-])", triggers=("eyj",), then=r"[a-z0-9_-]{8,}\.eyj[a-z0-9_-]{8,}\.[a-z0-9_-]*"),
    Rule("secret.url-credentials", "secret", "holds a password inside a URL", view="text",
         triggers=("://",),
         then=r"[^\s/:@]*:(?P<value>(?!\[redacted)[^\s/@]{1,200})@[\w.-]"),
    Rule("secret.authorization", "secret", "holds an Authorization header", view="text",
         triggers=("authorization", "proxy-authorization", "x-api-key", "api-key", "x-auth-token"),
         then=r"['\"]?\s*[:=]\s*['\"]?(?:(?:basic|bearer|token|digest|apikey|key)\s+)?"
              r"(?P<value>(?!\[redacted)(?!(?:basic|bearer|token|digest|apikey|key)\b)[a-z0-9._~+/=:-]{6,})"),
    Rule("secret.bearer", "secret", "holds a bearer token", view="text",
         triggers=("bearer", "basic"),
         then=r"\s+(?P<value>(?!\[redacted)(?=[a-z0-9._~+/-]{0,200}?[0-9])(?=[a-z0-9._~+/-]{0,200}?[a-z])"
              r"[a-z0-9._~+/-]{16,}=*)"),
    Rule("secret.password", "secret", "states a password", view="text", lead=r"(?<!redacted:)",
         triggers=("password", "passwd", "passphrase", "pass phrase", "passcode", "pin code", "wifi key",
                   "密码", "口令", "パスワード", "비밀번호", "contraseña", "mot de passe", "passwort", "пароль"),
         then=r"(?:\s+(?:for|of|to|on)\s+[^\s:=：]{1,40})?['\"]?\s*(?:is|was|are|=|:|：|是|为|為|は|는|은|es|est|ist|—)\s*"
              r"(?:now\s+|set\s+to\s+|still\s+)?['\"“「]?"
              r"(?P<value>(?!\[redacted)(?!(?:required|optional|stored|hashed|set|not|never|empty|missing|wrong|"
              r"incorrect|correct|valid|invalid|expired|saved|kept|encrypted|managed|rotated|changed|reset|too|very|"
              r"also|in|the|a|an|at|on|of|to|from|only|being|still|same|different|unknown|long|short|weak|strong|"
              r"case|secret|sent|handled|generated|used|needed|checked|protected|\.\.\.|…)\b)"
              r"[^\s'\"”」，。,;；、)]{3,200})"),
    Rule("secret.env-assignment", "secret", "assigns a secret to an environment variable", view="cased",
         needs=("PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN", "KEY", "PWD", "PASS", "CREDENTIAL", "AUTH"),
         then=r"(?<![A-Za-z0-9_])[A-Z0-9_]*?(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY|PWD|PASS|CREDENTIAL|AUTH)[A-Z0-9_]*['\"]?[ \t]*(?:=|:(?!//)|：)[ \t]*['\"]?"
              r"(?P<value>(?!\[REDACTED)(?!\.\.\.|<|\$\{?[A-Za-z_]|%\w+%|\*{3,}|xxx|changeme|your[-_])"
              r"[^\s'\"`,;]{3,400})"),
    Rule("secret.credential", "secret", "assigns a password, token or key", view="text",
         lead=r"(?<![a-z0-9])",
         triggers=("key", "secret", "token", "password", "passwd", "pass", "pwd", "credential", "apikey", "accesskey",
                   "secretkey", "密钥", "令牌", "口令"), prefix=True,
         then=r"s?(?:[_-][a-z0-9]+)*['\"]?\s*(?:[:=：]|是|为)\s*['\"]?(?P<value>(?!https?://|//)(?!\[redacted)"
              r"(?=[!#-&(-~]{0,200}?[0-9])(?=[!#-&(-~]{0,200}?[a-z])[!#-&(-_a-~]{16,})"),
)


def _check_table() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids)), "rule ids must be unique"


_check_table()


# ---------------------------------------------------------------- the pre-check


_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


class _Index:
    """Which rules could match a text, found cheaply. A trigger that begins with a Latin letter
    or digit can only match where a word begins (`Rule.source` makes sure), so it is looked up
    by its first word among the beginnings of the text's words: dict lookups, no regex. Any
    other trigger (symbols, CJK) by a substring test; there are a few hundred, each a fraction
    of a microsecond, and nothing to compile. A rule without triggers is always a candidate."""

    def __init__(self, rules: list[Rule]) -> None:
        self.always = tuple(rule for rule in rules if not rule.triggers)
        self.order = {rule.id: i for i, rule in enumerate(rules)}
        self.exact: dict[str, set[Rule]] = {}
        self.by_start: dict[str, list[tuple[str, Rule]]] = {}
        self.by_other: dict[str, set[Rule]] = {}
        for rule in rules:
            for trigger in rule.triggers:
                trigger = trigger.lower()
                words = _TOKEN.findall(trigger)
                if not words or not trigger.startswith(words[0]):
                    self.by_other.setdefault(trigger.replace(" ", ""), set()).add(rule)
                    continue
                first = words[0]
                # A first word the trigger goes on from ("do" in "do not ask") or of one or two
                # letters must be a whole word of the text; any other may run on ("revoked").
                if len(first) <= 2 or (len(trigger) > len(first) and not trigger[len(first)].isalnum()):
                    self.exact.setdefault(first, set()).add(rule)
                else:
                    self.by_start.setdefault(first[:3], []).append((first, rule))
        self.others = tuple(self.by_other.items())

    def candidates(self, text: str) -> list[Rule]:
        rules = set(self.always)
        exact, by_start = self.exact, self.by_start
        for token in set(_TOKEN.findall(text)):
            found = exact.get(token)
            if found:
                rules.update(found)
            for first, rule in by_start.get(token[:3], ()):
                if token.startswith(first):
                    rules.add(rule)
        if self.others:
            squeezed = text.replace(" ", "") if " " in text else text
            for key, found in self.others:
                if key in squeezed:
                    rules.update(found)
        return sorted(rules, key=lambda rule: self.order[rule.id])


_INDEXES: dict[str, _Index] = {}


def _index(name: str) -> _Index:
    """`raw`: the invisible-character rules; `views`: all others, whose triggers are looked for
    in the text view and, where it differs, the words view."""
    if name not in _INDEXES:
        _INDEXES[name] = _Index([r for r in RULES if (r.view == "raw") == (name == "raw")])
    return _INDEXES[name]


# ---------------------------------------------------------------- encoded payloads

_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
_PCT_RUN = re.compile(r"[A-Za-z0-9._~+-]*%[0-9A-Fa-f]{2}(?:[A-Za-z0-9._~+-]*%[0-9A-Fa-f]{2}){3,}[A-Za-z0-9._~+-]*")
_MAX_DEPTH = 2
# A run long enough to hold an encoded payload; most texts have none, and the decoders are skipped.
_LONG_RUN = re.compile(r"[A-Za-z0-9+/=_%-]{16,}")


def _decoded(text: str) -> list[tuple[str, int, int, str]]:
    """(encoding, start, end, decoded text) for each run that decodes to readable text."""
    out = []
    for match in _HEX_RUN.finditer(text):
        out.append(("hex", match.start(), match.end(), bytes.fromhex(match.group())))
    for match in _B64_RUN.finditer(text):
        run = match.group()
        if _HEX_RUN.fullmatch(run) or not (any(c.isupper() for c in run) and any(c.islower() for c in run)):
            continue
        import base64
        import binascii

        body = run.rstrip("=")
        try:
            data = base64.b64decode(body.replace("-", "+").replace("_", "/") + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            continue
        out.append(("base64", match.start(), match.end(), data))
    for match in _PCT_RUN.finditer(text) if "%" in text else ():
        from urllib.parse import unquote_to_bytes

        out.append(("url", match.start(), match.end(), unquote_to_bytes(match.group())))
    readable = []
    for kind, start, end, data in out:
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(decoded) >= 4 and sum(ch.isprintable() or ch in "\n\t" for ch in decoded) >= 0.95 * len(decoded):
            readable.append((kind, start, end, decoded))
    return readable


# ---------------------------------------------------------------- the API


def scan_text(text: str) -> list[Finding]:
    """Every finding in `text`, ordered by where it starts. When no rule finds an intent (only a
    secret or invisible characters, or nothing), the learned second opinion (core/threat_model.py)
    reads it too."""
    findings = _scan(text, 0, secrets=True)
    if not any(finding.category not in ("secret", "invisible") for finding in findings):
        findings += _second_opinion(text)  # no rule names an intent: ask the model which one it reads
    return findings


_MODEL_MIN_WORDS = 4  # a note of a few words (a URL, a command) gives the model too little to go on


_PROSE = re.compile(r"[^\W\d_]{2,}")
_PATHLIKE = re.compile(r"\S*[/\\]\S*")


def _prose_words(words: str) -> int:
    """Words of prose in a words view: letter runs outside URLs and paths, and each two CJK
    characters (written without spaces) count as one."""
    count = 0
    for run in _PROSE.findall(_PATHLIKE.sub(" ", words)):
        count += max(1, len(run) // 2) if run[0] >= "\u3000" else 1
    return count


def _second_opinion(text: str) -> list[Finding]:
    words = words_view(text_view(text)).text
    if _prose_words(words) < _MODEL_MIN_WORDS:
        return []
    from .threat_model import load

    verdict = load().judge(words)
    if verdict is None:
        return []
    category, probability = verdict
    return [Finding(category, f"model.{category}",
                    f"reads like a hostile memory ({category}) to the model learned from memtui's threat corpora "
                    f"(probability {probability:.2f}); no rule names it, so read it before approving",
                    _excerpt(text), 0, len(text))]


def _scan(text: str, depth: int, secrets: bool) -> list[Finding]:
    plain = is_plain(text)
    findings: list[Finding] = []
    if not plain or _has_control(text):
        findings += _run(_index("raw").candidates(text), View(text, None), text)
    text_v = text_view(text, plain=plain)
    words_v = words_view(text_v)
    by_view: dict[str, list[Rule]] = {"words": [], "text": [], "cased": [], "secret": []}
    searched = text_v.text
    if words_v.text != searched:
        searched += "\n" + words_v.text
    if not plain:
        searched += "\n" + text.lower()
    for rule in _index("views").candidates(searched):
        by_view["secret" if rule.category == "secret" else rule.view].append(rule)
    findings += _run(by_view["cased"], View(text, None), text)
    for view_name, view in (("words", words_v), ("text", text_v)):
        rules = by_view[view_name]
        if not rules or not any(rule.spans(view.text) for rule in rules):
            continue
        # Something matched: redo the view with its map back to raw offsets.
        tracked = text_view(text, tracked=True, plain=plain)
        if view_name == "words":
            tracked = words_view(tracked)
        findings += _run(rules, tracked, text)
    if secrets and by_view["secret"]:
        findings += _secrets(text, by_view["secret"])
    if depth < _MAX_DEPTH and _LONG_RUN.search(text):
        for kind, start, end, decoded in _decoded(text):
            inner = [f for f in _scan(decoded, depth + 1, secrets=False) if f.category != "invisible"]
            if not inner:
                continue
            first = inner[0]
            excerpt = _excerpt(text[start:end])
            findings.append(Finding("encoded", f"encoded.{kind}", f"{kind} that decodes to text which {first.reason}",
                                    excerpt, start, end))
            for category in dict.fromkeys(f.category for f in inner if f.category != "encoded"):
                finding = next(f for f in inner if f.category == category)
                findings.append(Finding(category, finding.rule, f"{finding.reason} (hidden as {kind})", excerpt, start, end))
    findings.sort(key=lambda finding: (finding.start, finding.end))
    return findings


def _has_control(text: str) -> bool:
    return _CONTROL.search(text) is not None


def _run(rules: list[Rule], view: View, raw: str) -> list[Finding]:
    findings = []
    for rule in rules:
        for start, end in rule.spans(view.text):
            raw_start, raw_end = view.raw_span(start, end, len(raw)) if view.offsets is not None else (start, end)
            findings.append(Finding(rule.category, rule.id, rule.reason, _excerpt(raw[raw_start:raw_end]),
                                    raw_start, raw_end))
    return findings


def _secrets(text: str, rules: list[Rule] | None = None) -> list[Finding]:
    """Secret findings over the raw text (the `text` rules read its lower case), overlaps
    merged into one finding named by a key shape among them when there is one."""
    if rules is None:
        rules = [rule for rule in _index("views").candidates(text.lower()) if rule.category == "secret"]
    # `text` rules read lower case (offsets kept: a character whose lower case is longer stays).
    lower = text.lower()
    if len(lower) != len(text):
        lower = "".join(char.lower() if len(char.lower()) == 1 else char for char in text)
    matches: list[tuple[Rule, int, int]] = []
    for rule in rules:
        matches += [(rule, start, end) for start, end in rule.spans(lower if rule.view == "text" else text)]
    if not matches:
        return []
    matches.sort(key=lambda match: (match[1], -match[2]))
    groups: list[list[tuple[Rule, int, int]]] = []
    for match in matches:
        if groups and match[1] < max(end for _, _, end in groups[-1]):
            groups[-1].append(match)
        else:
            groups.append([match])
    findings = []
    for group in groups:
        start, end = group[0][1], max(end for _, _, end in group)
        rule = next((rule for rule, _, _ in group if rule.shape), group[0][0])
        findings.append(Finding("secret", rule.id, rule.reason, _mask(text[start:end]), start, end))
    return findings


def redact(text: str) -> tuple[str, list[Finding]]:
    """Replace each secret with `[REDACTED:<type>]`; a text without secrets is returned as it is."""
    findings = _secrets(text)
    if not findings:
        return text, []
    pieces, last = [], 0
    for finding in findings:
        pieces += [text[last : finding.start], f"[REDACTED:{finding.rule.removeprefix('secret.')}]"]
        last = finding.end
    pieces.append(text[last:])
    return "".join(pieces), findings


def redact_secrets(value: str) -> str:
    """Any string a store keeps (text, source, keywords, notes) with its secrets redacted."""
    return redact(value)[0] if isinstance(value, str) and value else value


def strip_invisible(text: str) -> str:
    """`text` without the characters the normalisation drops (default-ignorable, format and
    control characters, but for tab and line breaks), emoji sequences kept whole."""
    return strip_hidden(text)


def threat_flags(findings: list[Finding]) -> list[str]:
    """`["blocked", "threat:<category>", ...]` for findings that block an entry; `[]` when none do."""
    found = {finding.category for finding in findings}
    categories = [category for category in CATEGORIES if category in found and category != "secret"]
    return ["blocked", *(f"threat:{category}" for category in categories)] if categories else []


_EXCERPT_CHARS = 60


def _excerpt(raw: str) -> str:
    """One short line; every character normalisation would drop is shown as <U+XXXX>."""
    hidden = _CONTROL if is_plain(raw) else _ignorable()
    shown = hidden.sub(lambda match: "".join(f"<U+{ord(c):04X}>" for c in match.group()), raw)
    shown = " ".join(shown.split())
    if len(shown) > _EXCERPT_CHARS:
        shown = shown[: _EXCERPT_CHARS - 1] + "…"
    return shown


def _mask(secret: str) -> str:
    """A secret's excerpt shows only its first characters, so findings can be shown and logged."""
    return secret[:4] + "…"
