"""The threat scan (docs/threat-scan.md): what in a memory's text could steer, fence-break or rob the agent.

Every rule is one row of `RULES`: id, category, the regex forms it matches, a one-line reason,
and hint words, one of which occurs in any text the rule matches. All rules but the `invisible`
ones read a folded copy of the text: NFKC and lower case per character, invisible characters
dropped, any kind of space made a plain space. So full-width letters, odd spaces and zero-width
splices do not hide a phrase, and key shapes are matched in lower case. The `invisible` rules
read the raw text, since folding erases what they look for.

Offsets in a `Finding` always index the raw text. Folding per character (rather than NFKC of
the whole string) keeps a map back to raw offsets; the one difference, that a letter is never
composed with a following combining mark, cannot produce the ASCII the rules look for.

The scan runs on every write and every load, so it skips work: one pass over the text finds the
hint words and only rules whose hints occur are tried, a rule is compiled on first use, and the
per-character fold is done only for texts holding a character it would change.
"""

from __future__ import annotations

import re
import unicodedata

CATEGORIES = ("override", "fence", "exfiltration", "invisible", "secret")


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

    `forms`: regexes over the folded text (raw text for `invisible`). They are kept apart so
    each can begin with a literal, which the regex engine jumps to; one big alternation would
    be tried at every position. A group named `value` is the part a finding covers.
    `hints`: lower-case words, one of which occurs in any text a form matches; the rule is tried
    only when one does. `after`: what must come right before a match (within 160 characters);
    the finding then starts where that does. `unless_after`: what must not, as in "never reveal
    the system prompt", which warns against the act rather than asking for it.
    """

    __slots__ = ("id", "category", "forms", "reason", "hints", "after", "unless_after", "_compiled")

    def __init__(
        self,
        id: str,
        category: str,
        forms: tuple[str, ...],
        reason: str,
        *,
        hints: tuple[str, ...] = (),
        after: str | None = None,
        unless_after: str | None = None,
    ) -> None:
        self.id = id
        self.category = category
        self.forms = forms
        self.reason = reason
        self.hints = hints
        self.after = after
        self.unless_after = unless_after
        self._compiled: tuple | None = None

    @property
    def patterns(self) -> tuple[re.Pattern[str], ...]:
        return self._compile()[0]

    def _compile(self) -> tuple[tuple[re.Pattern[str], ...], re.Pattern[str] | None, re.Pattern[str] | None]:
        # On first use, so that importing the module stays cheap.
        if self._compiled is None:
            forms = tuple(re.compile(form, re.ASCII) for form in self.forms)
            after, unless_after = (
                re.compile(rf"(?:{text})\Z", re.ASCII) if text else None for text in (self.after, self.unless_after)
            )
            self._compiled = (forms, after, unless_after)
        return self._compiled

    def __repr__(self) -> str:
        return f"Rule({self.id!r})"


def _words(*words: str, whole: bool = True) -> str:
    """Any of `words`; an ASCII word must not follow a letter or digit, nor (if `whole`) run on.

    The check on the left is a lookbehind placed after the word, so the alternation still begins
    with literals (a leading assertion would make the engine try every position). A "word" may
    also be a small regex that begins with a plain word; the check then applies to that word.
    """
    end = r"\b" if whole else ""
    alternatives = []
    for word in words:
        if word.isascii():
            first = re.match(r"[\w-]+", word).group()
            alternatives.append(f"{first}(?<![a-z0-9]{first}){word[len(first):]}{end}")
        else:
            alternatives.append(word)
    return "(?:" + "|".join(alternatives) + ")"


# ---------------------------------------------------------------- pattern pieces

_INVISIBLE_CLASS = (
    "\u200b\u200c\u200d\u2060-\u2064\u180e"  # zero-width spaces and joiners, word joiner
    "\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides, isolates
    "\ufeff"  # byte order mark
    "\U000e0000-\U000e007f"  # tag characters
)
_EMOJI = "\u2600-\u27bf\ufe0f\U0001f000-\U0001faff"

_IGNORE = r"(?:ignore|disregard|forget|override|bypass)\s+"
_IGNORE_HINTS = ("ignore", "disregard", "forget", "override", "bypass")
_ZH_IGNORE = r"(?:忽略|忽视|无视|不要理会|不用理会|别理会|别管|忘记|忘掉|抛开|抛弃|丢弃)"
_ZH_IGNORE_HINTS = ("忽略", "忽视", "无视", "理会", "别管", "忘记", "忘掉", "抛开", "抛弃", "丢弃")
_ZH_CLAUSE = r"[^。！？!?\n]"
_YOU_ARE = r"you(?:\s+are|['’]re)\s+"
_ROLE = (
    r"(?:(?:an?|the|my)\b|no\s+longer\b|not\s+(?:an?\s+)?(?:ai|assistant|bound|restricted)\b|free\b"
    r"|unrestricted|unfiltered|uncensored|jailbroken|dan\b|evil\b|called\b|named\b"
    r"|going\s+to\s+(?:act|pretend|be)\b|\w+gpt\b)"
)
_PROMPT_WORDS = r"(?:(?:all|of|the|your|its|full|entire|exact|complete|original|hidden|initial|verbatim)\s+)*"
_NEGATION = r"(?:never|not|n't|ever|不要|禁止|切勿|不得|不能|别)\s*"

_HTTP_TOOLS = ("curl", "wget", "iwr", "invoke-webrequest", "invoke-restmethod")
_HTTP_TOOL_HINTS = ("curl", "wget", "iwr", "invoke-")
_NET_TOOLS = (*_HTTP_TOOLS, "nc", "ncat", "netcat")
_SECRETISH = r"(?:token|secret|key|pass|pwd|cred|auth|session|cookie|private)"
_SECRET_FILE = (
    r"(?:\.ssh\b(?!/[\w.-]+\.pub\b)"
    r"|_(?<=id_)(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub\b)"
    r"|\.env(?<![\w.]\.env)\b(?![.-](?:example|sample|template|dist)\b)"
    r"|\.aws/credentials\b|\.netrc\b|\.npmrc\b|\.pypirc\b|/etc/shadow\b|\.git-credentials\b"
    r"|\.docker/config\.json\b|\.kube/config\b|\.bash_history\b|\.zsh_history\b)"
)
_SECRET_FILE_HINTS = (
    ".ssh", "_rsa", "_dsa", "_ecdsa", "_ed25519", ".env", ".aws/", ".netrc", ".npmrc", ".pypirc",
    "/etc/shadow", ".git-credentials", ".docker/", ".kube/", "_history",
)
_READ = _words(
    "cat", "read", "open", "head", "tail", "base64", "xxd", "scp", "get-content", "send", "upload", "post",
    "exfiltrate", "leak", "dump", "email", "paste",
    "发送", "上传", "泄露", "外发", "打印出", "输出", "读取", "查看", "打开",
    *(rf"{verb}\s+(?:out\s+)?(?:the\s+)?contents?\s+of" for verb in ("print", "show", "display", "output", "read")),
)
_SEND = _words("send", "upload", "post", "exfiltrate", "leak", "发送", "上传", "泄露", "外发", "发给")
_SENSITIVE = (
    r"(?<![a-z0-9_])(?:conversations?|chats?(?:\s+logs?)?|transcripts?|memor(?:y|ies)|credentials?|secrets?"
    r"|api[\s_-]?keys?|access\s+keys?|tokens?|passwords?|env(?:ironment)?\s+var(?:iable)?s|\.env\b"
    r"|cookies?|system\s+prompt|ssh|private\s+keys?|database|everything)"
)
_REMOTE = r"(?:(?:https?|ftp)://(?!localhost\b|127\.|0\.0\.0\.0|\[::1\])|[\w.+-]+@[\w-]+\.[a-z]{2,})"
_ZH_SEND = r"(?:发送|上传|发到|传到|转发|外发|贴到|泄露)"
_ZH_SEND_HINTS = ("发送", "上传", "发到", "传到", "转发", "外发", "贴到", "泄露")
_ZH_SENSITIVE = (
    r"(?:对话|聊天记录|会话|记忆|上下文|密钥|秘钥|令牌|token|密码|凭证|凭据|环境变量|\.env|cookie|系统提示|ssh|私钥"
    r"|api\s*key)"
)
# Names a credential is assigned to, also run together as camelCase folds them (`apiKey`).
_CREDENTIAL_NAMES = (
    "key", "secret", "token", "password", "passwd", "pass", "pwd", "credential", "credentials",
    "apikey", "accesskey", "secretkey", "privatekey", "appkey", "accesstoken", "authtoken", "refreshtoken",
    "sessiontoken", "idtoken", "clientsecret", "appsecret", "apisecret", "dbpassword", "adminpassword",
    "userpassword", "密码", "口令", "密钥", "令牌",
)
# An assigned value: printable ASCII but space, quotes and backtick, never running into an earlier
# redaction (so redacting twice changes nothing), 16 characters or more, with a letter and a digit.
_VALUE_CHAR = r"(?:(?!\[redacted:)[!#-&(-_a-~])"
_VALUE = (
    rf"(?P<value>(?!https?://|//)(?={_VALUE_CHAR}{{0,200}}?[0-9])(?={_VALUE_CHAR}{{0,200}}?[a-z])"
    rf"{_VALUE_CHAR}{{16,}})"
)


# ---------------------------------------------------------------- the table

RULES: tuple[Rule, ...] = (
    # override: text that tries to replace the instructions the agent runs under
    Rule("override.ignore-previous", "override", (
        rf"{_IGNORE}(?:(?:all|any|every|the|your|my|of|these|those|its)\s+){{0,3}}"
        r"(?:previous|prior|above|earlier|preceding|foregoing|original|initial|system|developer)\s+"
        r"(?:\w+\s+)?(?:instructions?|prompts?|rules|directives?|guidelines)\b",
    ), "tells the model to drop the instructions it was given", hints=_IGNORE_HINTS),
    Rule("override.ignore-all", "override", (
        rf"{_IGNORE}(?:all|your)\s+(?:(?:of\s+)?(?:your|the|my)\s+)?"
        r"(?:instructions|prompts?|directives|guidelines|programming)\b",
        rf"{_IGNORE}(?:all\s+(?:of\s+)?|everything\s+)?(?:the\s+|that\s+)?"
        r"(?:above|before\s+this|you\s+(?:were|have\s+been)\s+told)\b"
        r"(?!\s+(?:warnings?|errors?|messages?|output|logs?|notes?|examples?|steps?|comments?|lines?)\b)",
    ), "tells the model to drop everything it was told", hints=_IGNORE_HINTS),
    Rule("override.role-change", "override", (
        rf"{_YOU_ARE}now\s+{_ROLE}",
        rf"from\s+now\s+on,?\s+{_YOU_ARE}{_ROLE}",
        r"from\s+now\s+on,?\s+(?:you\s+)?(?:(?:will|must|shall|should)\s+)?"
        r"(?:act|behave|pretend|roleplay|role-play|play)\s+(?:as|like)\b",
    ), "assigns the model a new identity or role", hints=("you", "from now")),
    Rule("override.new-instructions", "override", (
        r"instructions?\s*[:：]",
        r"指令\s*[:：]",
    ), "announces replacement instructions", hints=("instruct", "指令"),
        after=rf"{_words('new', 'real', 'actual', 'true', 'secret')}\s+(?:system\s+)?|新的?(?:系统)?"),
    Rule("override.reveal-prompt", "override", (
        rf"(?:reveal|leak|disclose|dump|exfiltrate|recite|expose)\s+(?:(?:to\s+)?(?:me|us)\s+)?{_PROMPT_WORDS}"
        r"(?:system\s+(?:prompts?|instructions)|(?:initial|hidden|original|secret)\s+(?:prompts?|instructions))",
        r"(?:print|show|repeat|output|display|tell|give|write\s+out|type\s+out|list|paste)\s+(?:(?:me|us)\s+)?"
        rf"{_PROMPT_WORDS}your\s+(?:(?:full|entire|exact|complete|original|hidden|initial|secret)\s+)*"
        r"(?:system\s+)?(?:prompts?|instructions)\b",
        r"repeat\s+(?:all|everything|the\s+(?:text|words|content|messages?))\s+above\b",
        r"what\s+(?:is|are|was|were)\s+your\s+(?:(?:system|initial|original|hidden)\s+)?(?:prompt|instructions)\b",
    ), "asks the model to disclose its system prompt", hints=("prompt", "instruct", "above"),
        unless_after=_NEGATION),
    Rule("override.mode", "override", (
        rf"{_YOU_ARE}(?:now\s+)?(?:(?:in|running\s+in)\s+(?:\w+\s+)?"
        r"(?:developer|dan|jailbreak|god|unrestricted|unfiltered)\s+mode\b|jailbroken\b)",
        r"(?:dan|jailbreak|unrestricted|unfiltered)\s+mode\b",
        r"do\s+anything\s+now\b",
        r"jailbreak(?:(?:\s+mode)?\s*[:：]|\s+(?:the\s+)?(?:model|assistant|ai|llm)\b)",
        r"act\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil)\b",
    ), "switches the model into a 'mode' without its rules", hints=("you", "mode", "anything", "jailbr", "act as")),
    Rule("override.ignore-previous-zh", "override", (
        rf"{_ZH_IGNORE}{_ZH_CLAUSE}{{0,10}}?(?:"
        rf"(?:之前|以上|上面|上述|前面|先前|此前|原来|原有|原先|你的|系统){_ZH_CLAUSE}{{0,6}}?(?:指令|指示|提示|规则)"
        rf"|(?:所有|全部|一切){_ZH_CLAUSE}{{0,6}}?(?:指令|指示|提示词|规则|限制))",
    ), "tells the model to drop the instructions it was given", hints=_ZH_IGNORE_HINTS),
    Rule("override.role-change-zh", "override", (
        r"你现在(?:是|就是|扮演|成为|的身份是|的角色是)(?!在|否|不是)",
        r"从现在(?:开始|起)[，,、\s]*(?:你|您)(?:就|将|要|会)?(?:是|扮演|成为|作为|充当)",
        r"(?:没有|不受|无)(?:任何)?(?:限制|约束|审查|过滤)的\s*(?:ai|助手|模型|人工智能)",
    ), "assigns the model a new identity or role", hints=("现在", "限制的", "约束的", "审查的", "过滤的")),
    Rule("override.reveal-prompt-zh", "override", (
        r"(?:泄露|泄漏|透露|公开|复述|背诵)(?:一下|出)?(?:你的|你|给我|给我们)?[^。！？\n]{0,4}?"
        r"(?:系统提示|提示词|初始指令|原始指令|系统指令|隐藏指令)",
        r"(?:输出|显示|打印|告诉我|给我看|重复|列出|发给我)(?:一下|出)?你的[^。！？\n]{0,4}?"
        r"(?:系统提示|提示词|初始指令|指令)",
        r"把你的(?:系统提示词?|初始指令|提示词)[^。！？\n]{0,6}?(?:输出|打印|显示|告诉我|发给我|泄露|复述)",
        r"请(?:输出|显示|打印|重复)(?:一下|出)?(?:系统提示词?|初始指令)",
        r"你的(?:系统提示词?|初始指令)是什么",
    ), "asks the model to disclose its system prompt", hints=("提示", "指令"), unless_after=_NEGATION),
    # fence: text that could close the memory block or fake a chat turn
    Rule("fence.memory-marker", "fence", (
        r"=(?<!==)=++\s*(?:end\s+)?long-term\s+memory",
        r"以下是从过往会话中检索到的相关记忆",
    ), "copies the memory block's own markers", hints=("==", "以下是从过往")),
    Rule("fence.chat-token", "fence", (
        r"<\|\s*[a-z][a-z0-9_.▁-]{0,40}\s*\|>",
    ), "holds a chat-template special token", hints=("<|",)),
    Rule("fence.role-tag", "fence", (
        r"\[/?inst\]",
        r"<(?:<\s*/?sys\s*>>|(?:start|end)_of_turn>"
        r"|\s*/?\s*(?:system|assistant|system_prompt|im_start|im_end)\s*>)",
    ), "holds a chat-template role tag", hints=("[", "<")),
    # exfiltration: text that would send data or secrets off the machine
    Rule("exfiltration.http-secret", "exfiltration", (
        rf"{_words(*_HTTP_TOOLS)}[^\n]{{0,200}}?"
        rf"(?:\$\{{?[a-z_]*{_SECRETISH}|\$env:[a-z_]*{_SECRETISH}|%[a-z_]*{_SECRETISH}[a-z0-9_]*%"
        r"|\$\(\s*(?:cat|env|printenv|base64|head|tail|set)\b"
        r"|(?:token|secret|passw(?:or)?d|passwd|credentials?|api[_-]?key|access[_-]?key)\s*[=:：])",
    ), "sends a secret or credential over the network", hints=_HTTP_TOOL_HINTS),
    Rule("exfiltration.http-upload", "exfiltration", (
        r"curl\b[^\n]{0,200}?(?:\s-[a-z]*d\s*['\"]?@|--data(?:-binary|-raw|-urlencode|-ascii)?[\s=]+['\"]?@"
        r"|\s(?:-f|--form)\s+['\"]?[\w-]*=@|\s-t\s+['\"]?[~/.\w]|--upload-file\b)",
        r"wget\b[^\n]{0,200}?--post-file\b",
        r"(?:iwr|invoke-webrequest|invoke-restmethod)\b[^\n]{0,200}?-infile\b",
    ), "uploads a local file over the network", hints=_HTTP_TOOL_HINTS),
    Rule("exfiltration.netcat", "exfiltration", (
        r"<\s*['\"]?[~/.\w]",
    ), "feeds a local file to netcat", hints=("<",),
        after=rf"{_words('nc', 'ncat', 'netcat')}[^\n<|]{{0,120}}"),
    Rule("exfiltration.pipe-to-network", "exfiltration", (
        rf"\|\s*{_words(*_NET_TOOLS)}",
    ), "pipes local data into a network tool", hints=("|",),
        after=rf"{_words('cat', 'base64', 'tar', 'zip', 'gzip', 'xxd', 'env', 'printenv', 'history', 'get-content')}"
              r"[^\n|]{0,150}"),
    Rule("exfiltration.read-secret-file", "exfiltration", (
        _SECRET_FILE,
    ), "reads a credential or key file", hints=_SECRET_FILE_HINTS,
        after=rf"{_READ}[^\n>|。]{{0,60}}", unless_after=_NEGATION),
    Rule("exfiltration.send-secret-file", "exfiltration", (
        rf"{_SECRET_FILE}[^\n。]{{0,60}}?{_SEND}",
    ), "sends a credential or key file away", hints=_SECRET_FILE_HINTS, unless_after=_NEGATION),
    Rule("exfiltration.send-to-url", "exfiltration", (
        rf"{_words('send', 'upload', 'post', 'forward', 'transmit', 'email', 'paste', 'exfiltrate', 'leak')}"
        rf"[^\n]{{0,80}}?{_SENSITIVE}[^\n]{{0,80}}?\b(?:to|into|via)\s+{_REMOTE}",
        rf"{_words('exfiltrate', 'leak')}[^\n]{{0,80}}?\bto\s+{_REMOTE}",
    ), "sends conversation data or secrets to a remote address", hints=("://", "@")),
    Rule("exfiltration.send-to-url-zh", "exfiltration", (
        rf"{_ZH_SEND}[^\n。]{{0,30}}?{_ZH_SENSITIVE}[^\n。]{{0,30}}?{_REMOTE}",
        rf"{_ZH_SENSITIVE}[^\n。]{{0,30}}?{_ZH_SEND}[^\n。]{{0,30}}?{_REMOTE}",
    ), "sends conversation data or secrets to a remote address", hints=_ZH_SEND_HINTS),
    # invisible: characters that hide text from the person reading it (raw text)
    Rule("invisible.zero-width", "invisible", (
        rf"(?:[\u200b\u200c\u2060-\u2064\u180e]|(?<![{_EMOJI}])\u200d|\u200d(?![{_EMOJI}]))+",
    ), "holds zero-width characters that can hide or split words"),
    Rule("invisible.bidi", "invisible", (
        r"[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]+",
    ), "holds bidirectional controls that reorder what a reader sees"),
    Rule("invisible.bom", "invisible", (
        r"\ufeff+",
    ), "holds a byte order mark inside the text"),
    Rule("invisible.tag", "invisible", (
        r"[\U000e0000-\U000e007f]+",
    ), "holds Unicode tag characters, which can smuggle hidden text"),
    # secret: credentials that must not be stored; the id after "secret." names the type
    Rule("secret.private-key", "secret", (
        r"-----begin[a-z ]*private key(?: block)?-----"
        r"(?:[^-]{0,8000}-----end[a-z ]*private key(?: block)?-----|(?:\s*[a-z0-9+/=]{16,})*)",
    ), "holds a private key", hints=("-----begin",)),
    Rule("secret.anthropic", "secret", (
        r"sk-ant-(?<![a-z0-9_-]sk-ant-)[a-z0-9_-]{20,}",
    ), "holds an Anthropic API key", hints=("sk-ant-",)),
    Rule("secret.openai", "secret", (
        r"sk-(?<![a-z0-9_-]sk-)(?:proj-|svcacct-|admin-)?(?=[a-z0-9_-]{0,200}?[0-9])[a-z0-9_-]{20,}",
    ), "holds an OpenAI API key", hints=("sk-",)),
    Rule("secret.github", "secret", (
        r"gh[pousr]_(?<![a-z0-9_]gh._)[a-z0-9]{36,}",
        r"github_pat_(?<![a-z0-9_]github_pat_)[a-z0-9_]{22,}",
    ), "holds a GitHub token", hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Rule("secret.aws-access-key", "secret", (
        r"akia(?<![a-z0-9]akia)[0-9a-z]{16}(?![0-9a-z])",
    ), "holds an AWS access key id", hints=("akia",)),
    Rule("secret.slack", "secret", (
        r"xox[baprs]-(?<![a-z0-9]xox.-)[a-z0-9-]{10,}",
        r"hooks\.slack\.com/services/[a-z0-9/]{20,}",
    ), "holds a Slack token or webhook", hints=("xox", "hooks.slack.com")),
    Rule("secret.google", "secret", (
        r"aiza(?<![a-z0-9_-]aiza)[0-9a-z_-]{35}",
    ), "holds a Google API key", hints=("aiza",)),
    Rule("secret.stripe", "secret", (
        r"(?:sk|rk)_(?<![a-z0-9].._)(?:live|test)_[a-z0-9]{16,}",
    ), "holds a Stripe key", hints=("sk_live_", "sk_test_", "rk_live_", "rk_test_")),
    Rule("secret.jwt", "secret", (
        r"eyj(?<![a-z0-9_-]eyj)[a-z0-9_-]{8,}\.eyj[a-z0-9_-]{8,}\.[a-z0-9_-]*",
    ), "holds a JSON web token", hints=("eyj",)),
    Rule("secret.bearer", "secret", (
        r"bearer\s+(?P<value>(?=[a-z0-9._~+/-]{0,200}?[0-9])(?=[a-z0-9._~+/-]{0,200}?[a-z])[a-z0-9._~+/-]{20,}=*)",
    ), "holds a bearer token", hints=("bearer",)),
    Rule("secret.credential", "secret", (
        rf"[:=：]\s*['\"]?{_VALUE}",
        rf"(?:是|为)\s*{_VALUE}",
    ), "assigns a password, token or key",
        hints=("key", "secret", "token", "pass", "pwd", "credential", "密码", "口令", "密钥", "令牌"),
        after=rf"{_words(*_CREDENTIAL_NAMES, whole=False)}(?:[_-][a-z0-9]+)*['\"]?\s*"),
)


# ---------------------------------------------------------------- how the table is searched

_HINTED_RULES = tuple(rule for rule in RULES if rule.category != "invisible")
_INVISIBLE_RULES = tuple(rule for rule in RULES if rule.category == "invisible")
# Secret rules that know a key by its shape, rather than by the name it is assigned to.
_SHAPE_IDS = frozenset(
    rule.id for rule in RULES if rule.category == "secret" and not any("(?P<value>" in form for form in rule.forms)
)

# One regex finds, in a single pass, short tails of the hint words. Each tail starts at its
# word's least common character, so the engine (which jumps over characters that cannot start a
# match) stops rarely, and the tails are laid out as a trie, so each stop is cheap. A tail only
# nominates hints; each is then confirmed by a plain substring test.

_LETTER_ORDER = "etaoinshrdlcumwfgypbvkjxqz"  # English letters, most frequent first


def _rarity(char: str) -> int:
    if char in " ,'\n":
        return -1
    if char.isdigit():
        return 12
    if char in ".-/":
        return 17
    position = _LETTER_ORDER.find(char)
    return position if position >= 0 else len(_LETTER_ORDER) + 4


def _rare_tail(word: str) -> str:
    """The end of `word` from its least common character on: at least two characters, three for long words."""
    keep = 2 if len(word) <= 4 else 3
    if len(word) <= keep:
        return word
    start = max(range(len(word) - keep + 1), key=lambda i: (_rarity(word[i]), -i))
    return word[start:]


def _trie(words: list[str]) -> str:
    """An alternation of `words` that shares their common beginnings and prefers the longest."""
    branches: dict[str, list[str]] = {}
    for word in words:
        if word:
            branches.setdefault(word[0], []).append(word[1:])
    parts = [re.escape(first) + _trie(rests) for first, rests in sorted(branches.items())]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    return f"(?:{body})?" if "" in words else body


def _hint_index() -> tuple[re.Pattern[str], re.Pattern[str], dict[str, frozenset[str]], dict[str, tuple[Rule, ...]]]:
    hints_by_tail: dict[str, set[str]] = {}
    for rule in _HINTED_RULES:
        for hint in rule.hints:
            hints_by_tail.setdefault(_rare_tail(hint), set()).add(hint)

    # A found tail hides any tail that starts inside it, so it nominates their hints too.
    by_first: dict[str, list[str]] = {}
    for tail in hints_by_tail:
        by_first.setdefault(tail[0], []).append(tail)
    nominees = {}
    for tail in hints_by_tail:
        hidden = {
            other
            for k in range(len(tail))
            for other in by_first.get(tail[k], ())
            if tail[k:].startswith(other) or other.startswith(tail[k:])
        }
        nominees[tail] = frozenset().union(*(hints_by_tail[other] for other in hidden))
    rules_by_hint = {
        hint: tuple(rule for rule in _HINTED_RULES if hint in rule.hints)
        for hints in hints_by_tail.values()
        for hint in hints
    }
    # Chinese hints get their own regex, searched only in text that is not plain ASCII.
    ascii_tails = [tail for tail in hints_by_tail if tail.isascii()]
    other_tails = [tail for tail in hints_by_tail if not tail.isascii()]
    return re.compile(_trie(ascii_tails)), re.compile(_trie(other_tails)), nominees, rules_by_hint


_ASCII_HINTS, _OTHER_HINTS, _NOMINEES, _RULES_BY_HINT = _hint_index()
_INVISIBLE_CHAR = re.compile(f"[{_INVISIBLE_CLASS}]")
# Text made only of these characters folds to its plain lower case, as far as the rules can
# tell; any other character sends the text through the per-character fold. Common CJK
# punctuation (，：；！？（）～…) is listed although NFKC would change it: folding it would send
# most Chinese text down the slow path, and the rules accept those marks as they are.
_FOLDS_AS_LOWER_CASE = (
    "\x00-\x7f"  # ASCII
    "\u00a1-\u00a7\u00a9\u00ab-\u00ae\u00b0\u00b1\u00b5-\u00b7\u00bb"  # Latin-1 signs
    "\u00bf-\u0131\u0134-\u013e\u0141-\u0148\u014a-\u017e"  # Latin letters
    "\u0386-\u052f"  # Greek, Cyrillic
    "\u2010-\u2016\u2018-\u2023\u2026\u2027\u2030-\u2032\u2035\u2038-\u203b"  # dashes, quotes, bullets
    "\u2190-\u21ff\u2200-\u222b\u2300-\u245f\u2500-\u27bf"  # arrows, maths, boxes, shapes, dingbats
    "\u3001-\u3037\u303b-\u309a\u309d\u309e\u30a0-\u30fe"  # CJK punctuation, kana
    "\u4e00-\u9fff"  # CJK ideographs
    "\uff01-\uff03\uff06-\uff0c\uff1a\uff1b\uff1f\uff5e"  # full-width punctuation
    "\U0001f300-\U0001faff"  # emoji
)
_NEEDS_FOLDING = re.compile(f"[^{_FOLDS_AS_LOWER_CASE}]")
_CONTEXT = 160


# ---------------------------------------------------------------- the API


def scan_text(text: str) -> list[Finding]:
    """Every finding in `text`, ordered by where it starts."""
    folded, raw_offsets = _fold(text)
    findings: list[Finding] = []
    if raw_offsets is not None:
        for rule in _INVISIBLE_RULES:
            findings += (_finding(rule, text, start, end) for start, end in _spans(rule, text))
    rules = _hinted(folded)
    if not rules:
        return findings
    secrets: list[tuple[Rule, int, int]] = []
    for rule, start, end in _matches(rules, folded, raw_offsets):
        if rule.category == "secret":
            secrets.append((rule, start, end))
        else:
            findings.append(_finding(rule, text, start, end))
    findings += _merge_secrets(secrets, text)
    findings.sort(key=lambda finding: (finding.start, finding.end))
    return findings


def redact(text: str) -> tuple[str, list[Finding]]:
    """Replace each secret with `[REDACTED:<type>]`; a text without secrets is returned as it is."""
    folded, raw_offsets = _fold(text)
    rules = [rule for rule in _hinted(folded) if rule.category == "secret"]
    findings = _merge_secrets(_matches(rules, folded, raw_offsets), text) if rules else []
    if not findings:
        return text, []
    pieces, last = [], 0
    for finding in findings:
        pieces += [text[last : finding.start], f"[REDACTED:{finding.rule.removeprefix('secret.')}]"]
        last = finding.end
    pieces.append(text[last:])
    return "".join(pieces), findings


def strip_invisible(text: str) -> str:
    """`text` without the characters the `invisible` rules look for."""
    if text.isascii():
        return text
    return _INVISIBLE_CHAR.sub("", text)


def threat_flags(findings: list[Finding]) -> list[str]:
    """`["blocked", "threat:<category>", ...]` for findings that block an entry; `[]` when none do."""
    found = {finding.category for finding in findings}
    categories = [category for category in CATEGORIES if category in found and category != "secret"]
    return ["blocked", *(f"threat:{category}" for category in categories)] if categories else []


# ---------------------------------------------------------------- the work


def _fold(text: str) -> tuple[str, list[int] | None]:
    """The folded text, and the raw offset of each of its characters unless they line up."""
    folded = text.lower()
    if text.isascii() or (len(folded) == len(text) and not _NEEDS_FOLDING.search(text)):
        return folded, None
    pieces = [_fold_char(char) for char in text]
    return "".join(pieces), [index for index, piece in enumerate(pieces) for _ in piece]


def _fold_char(char: str) -> str:
    if char < "\x80":
        return char.lower()
    if _INVISIBLE_CHAR.match(char):
        return ""
    folded = unicodedata.normalize("NFKC", char).lower()
    return " " if folded.isspace() else folded


def _hinted(folded: str) -> list[Rule]:
    """The rules one of whose hints occurs in `folded`, in table order."""
    tails = _ASCII_HINTS.findall(folded)
    if not folded.isascii():
        tails += _OTHER_HINTS.findall(folded)
    if not tails:
        return []
    hints = frozenset().union(*map(_NOMINEES.__getitem__, set(tails)))
    found = {rule for hint in hints if hint in folded for rule in _RULES_BY_HINT[hint]}
    return sorted(found, key=_HINTED_RULES.index)


def _spans(rule: Rule, scanned: str) -> list[tuple[int, int]]:
    """The rule's matches in `scanned`, earliest first, overlaps between its forms dropped."""
    forms, after, unless_after = rule._compile()
    spans = []
    for form in forms:
        for match in form.finditer(scanned):
            start, end = match.span()
            if after is not None:
                before = after.search(scanned, max(0, start - _CONTEXT), start)
                if before is None:
                    continue
                start = before.start()
            if unless_after is not None and unless_after.search(scanned, max(0, start - _CONTEXT), start):
                continue
            if match.groupdict().get("value") is not None:
                start, end = match.span("value")
            spans.append((start, end))
    spans.sort()
    kept: list[tuple[int, int]] = []
    for start, end in spans:
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


def _matches(rules: list[Rule], folded: str, raw_offsets: list[int] | None) -> list[tuple[Rule, int, int]]:
    """(rule, raw start, raw end) for each match of `rules` in the folded text."""
    matches = []
    for rule in rules:
        for start, end in _spans(rule, folded):
            if raw_offsets is not None:
                start, end = raw_offsets[start], raw_offsets[end - 1] + 1
            matches.append((rule, start, end))
    return matches


def _merge_secrets(matches: list[tuple[Rule, int, int]], text: str) -> list[Finding]:
    """Overlapping secret matches become one finding over their union, named by a key shape
    among them when there is one (rather than by `credential` or `bearer`)."""
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
        rule = next((rule for rule, _, _ in group if rule.id in _SHAPE_IDS), group[0][0])
        findings.append(Finding("secret", rule.id, rule.reason, _mask(text[start:end]), start, end))
    return findings


def _finding(rule: Rule, raw: str, start: int, end: int) -> Finding:
    return Finding(rule.category, rule.id, rule.reason, _excerpt(raw[start:end]), start, end)


_EXCERPT_CHARS = 60


def _excerpt(raw: str) -> str:
    shown = _INVISIBLE_CHAR.sub(lambda match: f"<U+{ord(match.group()):04X}>", raw)
    shown = " ".join(shown.split())
    if len(shown) > _EXCERPT_CHARS:
        shown = shown[: _EXCERPT_CHARS - 1] + "…"
    return shown


def _mask(secret: str) -> str:
    """A secret's excerpt shows only its first characters, so findings can be shown and logged."""
    return secret[:4] + "…"
