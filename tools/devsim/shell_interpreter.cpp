#include "tools/devsim/shell_interpreter.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace droidlab::devsim {
namespace {

constexpr std::string_view kShellName = "/system/bin/sh";

// ---- Reading the script: tokens keep their raw text; expansion waits for the command to run.

enum class TokenKind { kWord, kSemicolon, kAnd, kOr, kPipe };

struct Token {
  TokenKind kind = TokenKind::kWord;
  std::string raw;
};

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::size_t SkipQuoted(std::string_view s, std::size_t i);

// s[i..] is "$(": the index past its matching ')', or npos when it has none.
std::size_t SkipSubstitution(std::string_view s, std::size_t i) {
  int depth = 1;
  for (std::size_t j = i + 2; j < s.size();) {
    const char c = s[j];
    if (c == '\'' || c == '"' || c == '\\' || (c == '$' && j + 1 < s.size() && s[j + 1] == '(')) {
      j = SkipQuoted(s, j);
      if (j == std::string_view::npos) return j;
    } else if (c == '(') {
      ++depth;
      ++j;
    } else if (c == ')') {
      if (--depth == 0) return j + 1;
      ++j;
    } else {
      ++j;
    }
  }
  return std::string_view::npos;
}

// s[i] opens a quoted part, an escape or a $(…): the index past it, or npos when unterminated.
std::size_t SkipQuoted(std::string_view s, std::size_t i) {
  const char c = s[i];
  if (c == '\'') {
    const std::size_t close = s.find('\'', i + 1);
    return close == std::string_view::npos ? close : close + 1;
  }
  if (c == '\\') return std::min(i + 2, s.size());
  if (c == '$') return SkipSubstitution(s, i);
  for (std::size_t j = i + 1; j < s.size();) {  // "…"
    if (s[j] == '"') return j + 1;
    if (s[j] == '\\') {
      j += 2;
    } else if (s[j] == '$' && j + 1 < s.size() && s[j + 1] == '(') {
      j = SkipSubstitution(s, j);
      if (j == std::string_view::npos) return j;
    } else {
      ++j;
    }
  }
  return std::string_view::npos;
}

std::optional<std::vector<Token>> Tokenize(std::string_view script) {
  std::vector<Token> tokens;
  Token word;
  bool in_word = false;
  auto finish_word = [&] {
    if (in_word) tokens.push_back(std::move(word));
    word = Token{};
    in_word = false;
  };
  for (std::size_t i = 0; i < script.size();) {
    const char c = script[i];
    if (c == ' ' || c == '\t') {
      finish_word();
      ++i;
    } else if (c == '\n' || c == ';') {
      finish_word();
      tokens.push_back({TokenKind::kSemicolon, {}});
      ++i;
    } else if (c == '&' && i + 1 < script.size() && script[i + 1] == '&') {
      finish_word();
      tokens.push_back({TokenKind::kAnd, {}});
      i += 2;
    } else if (c == '|') {
      finish_word();
      const bool is_or = i + 1 < script.size() && script[i + 1] == '|';
      tokens.push_back({is_or ? TokenKind::kOr : TokenKind::kPipe, {}});
      i += is_or ? 2 : 1;
    } else if (c == '#' && !in_word) {
      while (i < script.size() && script[i] != '\n') ++i;
    } else if (c == '\'' || c == '"' || c == '\\' ||
               (c == '$' && i + 1 < script.size() && script[i + 1] == '(')) {
      const std::size_t end = SkipQuoted(script, i);
      if (end == std::string_view::npos) return std::nullopt;
      word.raw.append(script.substr(i, end - i));
      in_word = true;
      i = end;
    } else {
      word.raw.push_back(c);
      in_word = true;
      ++i;
    }
  }
  finish_word();
  return tokens;
}

// ---- The parsed script.

struct Node;
struct List;
using NodePtr = std::shared_ptr<const Node>;
using ListPtr = std::shared_ptr<const List>;

enum class Joint { kThen, kAnd, kOr };  // what joins a command to the one before it

struct List {
  std::vector<std::pair<Joint, NodePtr>> items;
};

struct Node {
  enum class Kind { kSimple, kWhile, kIf, kGroup };
  Kind kind = Kind::kSimple;
  bool negate = false;
  std::vector<std::string> words;  // kSimple: raw words
  ListPtr condition;               // kWhile, kIf
  ListPtr body;                    // kWhile, kIf (then), kGroup
  ListPtr otherwise;               // kIf (else); may be null
};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  ListPtr ParseScript() {
    ListPtr list = ParseList({});
    if (list && pos_ < tokens_.size()) return Fail("syntax error: unexpected '" + Raw() + "'");
    return list;
  }
  const std::string& error() const { return error_; }
  int error_status() const { return error_status_; }

 private:
  std::string Raw() const { return pos_ < tokens_.size() ? tokens_[pos_].raw : "end of file"; }
  // Reserved words count only unquoted, where a command starts (the raw text is the word).
  bool At(std::initializer_list<std::string_view> words) const {
    if (pos_ >= tokens_.size() || tokens_[pos_].kind != TokenKind::kWord) return false;
    for (const auto word : words) {
      if (tokens_[pos_].raw == word) return true;
    }
    return false;
  }
  std::nullptr_t Fail(std::string message, int status = 1) {
    if (error_.empty()) {
      error_ = std::move(message);
      error_status_ = status;
    }
    return nullptr;
  }
  bool Expect(std::string_view word) {
    if (!At({word})) {
      Fail("syntax error: '" + Raw() + "' unexpected, expecting '" + std::string(word) + "'");
      return false;
    }
    ++pos_;
    return true;
  }

  ListPtr ParseList(std::initializer_list<std::string_view> terminators) {
    auto list = std::make_shared<List>();
    Joint joint = Joint::kThen;
    bool after_and_or = false;
    for (;;) {
      while (pos_ < tokens_.size() && tokens_[pos_].kind == TokenKind::kSemicolon) {
        if (!after_and_or) joint = Joint::kThen;  // `a &&` NEWLINE `b` goes on
        ++pos_;
      }
      if (pos_ >= tokens_.size()) break;
      if (At(terminators)) break;
      if (tokens_[pos_].kind != TokenKind::kWord) return Fail("syntax error: unexpected operator");
      NodePtr node = ParseCommand();
      if (!node) return nullptr;
      list->items.emplace_back(joint, std::move(node));
      after_and_or = false;
      if (pos_ >= tokens_.size()) break;
      switch (tokens_[pos_].kind) {
        case TokenKind::kAnd:
          joint = Joint::kAnd;
          after_and_or = true;
          ++pos_;
          break;
        case TokenKind::kOr:
          joint = Joint::kOr;
          after_and_or = true;
          ++pos_;
          break;
        case TokenKind::kPipe:
          return Fail("devsim: pipelines are not simulated", 2);
        case TokenKind::kSemicolon:
          break;
        case TokenKind::kWord:
          return Fail("syntax error: '" + Raw() + "' unexpected");
      }
    }
    if (after_and_or) return Fail("syntax error: unexpected end after && or ||");
    return list;
  }

  NodePtr ParseCommand() {
    auto node = std::make_shared<Node>();
    if (At({"!"})) {
      ++pos_;
      NodePtr inner = ParseCommand();
      if (!inner) return nullptr;
      auto negated = std::make_shared<Node>(*inner);
      negated->negate = !inner->negate;
      return negated;
    }
    if (At({"while"})) {
      ++pos_;
      node->kind = Node::Kind::kWhile;
      node->condition = ParseList({"do"});
      if (!node->condition || !Expect("do")) return nullptr;
      node->body = ParseList({"done"});
      if (!node->body || !Expect("done")) return nullptr;
      return node;
    }
    if (At({"if"})) {
      ++pos_;
      node->kind = Node::Kind::kIf;
      node->condition = ParseList({"then"});
      if (!node->condition || !Expect("then")) return nullptr;
      node->body = ParseList({"else", "elif", "fi"});
      if (!node->body) return nullptr;
      if (At({"elif"})) return Fail("devsim: elif is not simulated", 2);
      if (At({"else"})) {
        ++pos_;
        node->otherwise = ParseList({"fi"});
        if (!node->otherwise) return nullptr;
      }
      if (!Expect("fi")) return nullptr;
      return node;
    }
    if (At({"{"})) {
      ++pos_;
      node->kind = Node::Kind::kGroup;
      node->body = ParseList({"}"});
      if (!node->body || !Expect("}")) return nullptr;
      return node;
    }
    if (At({"do", "done", "then", "else", "elif", "fi", "}"})) {
      return Fail("syntax error: '" + Raw() + "' unexpected");
    }
    while (pos_ < tokens_.size() && tokens_[pos_].kind == TokenKind::kWord) {
      node->words.push_back(tokens_[pos_].raw);
      ++pos_;
    }
    return node;
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::string error_;
  int error_status_ = 1;
};

// ---- Running it.

// One shell: its variables (its own for `sh -c`), the commands, and $?.
struct Shell {
  ShellEnvironment* env = nullptr;
  CommandRunner* runner = nullptr;
  int last_status = 0;
  // Of the command being expanded: the status of its last $(…) (an assignment alone takes it,
  // as POSIX says) and their stderr.
  std::optional<int> substitution_status;
  std::string substitution_stderr;
  std::shared_ptr<ShellEnvironment> own_env;
};
using ShellPtr = std::shared_ptr<Shell>;

// Output so far; `stop` after exit/exec or a command that never ends; `resume` when a loop
// paused after an iteration (what comes after it is folded into resume).
struct Flow {
  CommandOutput out;
  bool stop = false;
  std::function<Flow()> resume;
};

// Appends `part` (timing kept) and takes its never-ending flags.
void Merge(CommandOutput& total, const CommandOutput& part) {
  total.Append(part);
  if (part.follow_logcat) {
    total.follow_logcat = true;
    total.follow_filter = part.follow_filter;
    total.follow_buffers = part.follow_buffers;
    total.follow_format = part.follow_format;
  }
  total.hang = total.hang || part.hang;
  total.drop_stream = total.drop_stream || part.drop_stream;
}

// `first`, then `then` once first has ended (now, or in a later slice when it paused).
Flow Then(Flow first, std::function<Flow()> then) {
  if (first.resume) {
    auto inner = std::move(first.resume);
    first.resume = [inner = std::move(inner), then = std::move(then)] {
      return Then(inner(), then);
    };
    return first;
  }
  if (first.stop) return first;
  Flow rest = then();
  Merge(first.out, rest.out);
  first.stop = rest.stop;
  first.resume = std::move(rest.resume);
  return first;
}

std::string Lookup(const Shell& sh, std::string_view name) {
  if (name == "?") return std::to_string(sh.last_status);
  if (name.size() == 1 && std::isdigit(static_cast<unsigned char>(name[0]))) {
    const std::size_t n = static_cast<std::size_t>(name[0] - '0');
    return n < sh.env->positional.size() ? sh.env->positional[n] : std::string();
  }
  const auto it = sh.env->variables.find(std::string(name));
  return it == sh.env->variables.end() ? std::string() : it->second;
}

// Expands the $… at raw[i]; returns how many characters it used.
std::size_t ExpandDollar(std::string_view raw, std::size_t i, Shell& sh, std::string& out) {
  if (i + 1 >= raw.size()) {
    out.push_back('$');
    return 1;
  }
  const char next = raw[i + 1];
  if (next == '(') {
    const std::size_t end = SkipSubstitution(raw, i);
    // mksh runs $(…) in a forked subshell: its variable changes stay there.
    ShellEnvironment sub = *sh.env;
    sh.runner->ProcessStarted();
    const CommandOutput inner =
        RunShellScriptToEnd(raw.substr(i + 2, end - i - 3), sub, *sh.runner);
    std::string text = inner.Stdout();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    out += text;
    sh.substitution_status = inner.exit_code;
    sh.substitution_stderr += inner.Stderr();
    return end - i;
  }
  if (next == '?' || std::isdigit(static_cast<unsigned char>(next))) {
    out += Lookup(sh, raw.substr(i + 1, 1));
    return 2;
  }
  if (next == '{') {
    const std::size_t close = raw.find('}', i + 2);
    if (close == std::string_view::npos) {
      out.push_back('$');
      return 1;
    }
    out += Lookup(sh, raw.substr(i + 2, close - i - 2));
    return close - i + 1;
  }
  std::size_t end = i + 1;
  while (end < raw.size() && IsNameChar(raw[end])) ++end;
  if (end == i + 1) {
    out.push_back('$');
    return 1;
  }
  out += Lookup(sh, raw.substr(i + 1, end - i - 1));
  return end - i;
}

struct Expanded {
  std::string text;
  bool is_word = false;  // an unquoted expansion to nothing is no word at all, as in sh
};

Expanded Expand(std::string_view raw, Shell& sh) {
  Expanded e;
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size();) {
    const char c = raw[i];
    if (c == '\'') {
      const std::size_t close = raw.find('\'', i + 1);
      e.text.append(raw.substr(i + 1, close - i - 1));
      quoted = true;
      i = close + 1;
    } else if (c == '"') {
      quoted = true;
      ++i;
      while (i < raw.size() && raw[i] != '"') {
        const char d = raw[i];
        if (d == '\\' && i + 1 < raw.size() &&
            std::string_view("\"\\$`\n").find(raw[i + 1]) != std::string_view::npos) {
          if (raw[i + 1] != '\n') e.text.push_back(raw[i + 1]);
          i += 2;
        } else if (d == '$') {
          i += ExpandDollar(raw, i, sh, e.text);
        } else {
          e.text.push_back(d);
          ++i;
        }
      }
      ++i;
    } else if (c == '\\') {
      if (i + 1 < raw.size() && raw[i + 1] != '\n') {
        e.text.push_back(raw[i + 1]);
        quoted = true;
      }
      i += 2;
    } else if (c == '$') {
      i += ExpandDollar(raw, i, sh, e.text);
    } else {
      e.text.push_back(c);
      ++i;
    }
  }
  e.is_word = quoted || !e.text.empty();
  return e;
}

struct Redirections {
  bool drop_stdout = false;
  bool drop_stderr = false;
  bool stderr_to_stdout = false;
  std::optional<std::string> stdin_file;  // <FILE other than /dev/null
  bool unsupported = false;
};

// Takes a raw word that is a redirection (unquoted `<`, `>`, `1>`, `2>`, `0<` first); false
// for any other word.
bool TakeRedirection(std::string_view raw, Shell& sh, Redirections& r) {
  auto target = [&](std::size_t skip) { return Expand(raw.substr(skip), sh).text; };
  if (raw == "2>&1") {
    r.stderr_to_stdout = true;
  } else if (raw.starts_with("2>")) {
    if (target(2) == "/dev/null") {
      r.drop_stderr = true;
    } else {
      r.unsupported = true;
    }
  } else if (raw.starts_with(">") || raw.starts_with("1>")) {
    if (target(raw[0] == '>' ? 1 : 2) == "/dev/null") {
      r.drop_stdout = true;
    } else {
      r.unsupported = true;
    }
  } else if (raw.starts_with("<") || raw.starts_with("0<")) {
    std::string file = target(raw[0] == '<' ? 1 : 2);
    if (file != "/dev/null") r.stdin_file = std::move(file);  // no simulated command reads stdin
  } else {
    return false;
  }
  return true;
}

CommandOutput ApplyRedirections(CommandOutput output, const Redirections& redirections) {
  CommandOutput result;
  result.exit_code = output.exit_code;
  result.follow_logcat = output.follow_logcat;
  result.follow_filter = output.follow_filter;
  result.follow_buffers = output.follow_buffers;
  result.follow_format = output.follow_format;
  result.hang = output.hang;
  result.drop_stream = output.drop_stream;
  for (auto& chunk : output.chunks) {
    if (chunk.delay.count() > 0) result.Wait(chunk.delay);
    bool to_stderr = chunk.to_stderr;
    if (to_stderr && redirections.stderr_to_stdout) to_stderr = false;
    if (to_stderr ? redirections.drop_stderr : redirections.drop_stdout) continue;
    if (to_stderr) {
      result.Err(chunk.data);
    } else {
      result.Out(chunk.data);
    }
  }
  return result;
}

// toybox's xparsetime (lib/xwrap.c) as sleep uses it: SECONDS[.FRACTION][s|m|h|d].
std::optional<std::chrono::milliseconds> ParseSleep(std::string_view text) {
  long multiplier = 1000;
  if (!text.empty()) {
    const char unit = text.back();
    const std::string_view units = "smhd";
    const long per_unit[] = {1000, 60'000, 3'600'000, 86'400'000};
    if (const auto at = units.find(unit); at != std::string_view::npos) {
      multiplier = per_unit[at];
      text.remove_suffix(1);
    }
  }
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return std::nullopt;
  long value = 0;
  if (!whole.empty()) {
    const auto parsed = ParseLong(whole);
    if (!parsed || *parsed < 0) return std::nullopt;
    value = *parsed * multiplier;
  }
  long scale = multiplier;
  for (const char c : fraction) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    scale /= 10;  // below a millisecond the digits no longer count
    value += (c - '0') * scale;
  }
  return std::chrono::milliseconds(value);
}

// toybox echo: -n drops the newline; -e and -E are accepted (escapes are not interpreted).
CommandOutput Echo(const std::vector<std::string>& argv) {
  CommandOutput output;
  std::size_t i = 1;
  bool newline = true;
  for (; i < argv.size(); ++i) {
    if (argv[i] == "-n") {
      newline = false;
    } else if (argv[i] != "-e" && argv[i] != "-E") {
      break;
    }
  }
  std::string text;
  for (std::size_t j = i; j < argv.size(); ++j) {
    if (j > i) text.push_back(' ');
    text += argv[j];
  }
  if (newline) text.push_back('\n');
  output.Out(text);
  return output;
}

// mksh's read builtin, one line from the redirected file: with one name the line without its
// surrounding blanks, with several the blank-separated fields (the last takes the rest). Status
// 1 at end of input (no newline read). -r is taken (backslashes are never special here).
CommandOutput Read(const std::vector<std::string>& argv, const Redirections& redirections,
                   Shell& sh) {
  CommandOutput output;
  std::vector<std::string> names;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] != "-r") names.push_back(argv[i]);
  }
  if (names.empty()) names.push_back("REPLY");
  std::string input;
  if (redirections.stdin_file) {
    // A /proc file on a phone is read by the shell itself; devsim's cat knows the same files.
    const std::vector<std::string> cat{"cat", *redirections.stdin_file};
    const CommandOutput file = sh.runner->Run(cat);
    if (file.exit_code != 0) {
      output.Err(std::string(kShellName) + ": can't open " + *redirections.stdin_file +
                 ": No such file or directory\n");
      output.exit_code = 1;
      return output;
    }
    input = file.Stdout();
  }
  const std::size_t newline = input.find('\n');
  std::string_view line = std::string_view(input).substr(0, newline);
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  for (std::size_t n = 0; n < names.size(); ++n) {
    while (!line.empty() && blank(line.front())) line.remove_prefix(1);
    std::string_view field = line;
    if (n + 1 < names.size()) {
      std::size_t end = 0;
      while (end < line.size() && !blank(line[end])) ++end;
      field = line.substr(0, end);
      line.remove_prefix(end);
    } else {
      while (!field.empty() && blank(field.back())) field.remove_suffix(1);
    }
    sh.env->variables[names[n]] = std::string(field);
  }
  output.exit_code = newline == std::string::npos ? 1 : 0;
  return output;
}

Flow ExecList(ListPtr list, std::size_t from, ShellPtr sh);

// `sh -c SCRIPT [NAME [ARGS…]]`: a shell of its own ($0 NAME, $1… ARGS), its variables copied.
Flow RunNestedShell(const std::vector<std::string>& argv, const ShellPtr& sh) {
  Flow flow;
  if (argv.size() < 3 || argv[1] != "-c") {
    flow.out.Err(std::string(kShellName) + ": devsim: only `sh -c SCRIPT` is simulated\n");
    sh->last_status = 2;
    return flow;
  }
  sh->runner->ProcessStarted();
  auto inner = std::make_shared<Shell>();
  inner->own_env = std::make_shared<ShellEnvironment>();
  inner->own_env->variables = sh->env->variables;
  inner->own_env->positional.assign(argv.begin() + 3, argv.end());
  if (inner->own_env->positional.empty()) inner->own_env->positional.push_back(argv[0]);
  inner->env = inner->own_env.get();
  inner->runner = sh->runner;
  auto tokens = Tokenize(argv[2]);
  if (!tokens) {
    flow.out.Err(std::string(kShellName) + ": syntax error: unterminated quoted string\n");
    sh->last_status = 1;
    return flow;
  }
  Parser parser(std::move(*tokens));
  ListPtr list = parser.ParseScript();
  if (!list) {
    flow.out.Err(std::string(kShellName) + ": " + parser.error() + "\n");
    sh->last_status = parser.error_status();
    return flow;
  }
  Flow ran = ExecList(list, 0, inner);
  // Its exit ends it, not the shell that ran it.
  struct Finisher {
    static Flow Finish(Flow f, ShellPtr inner, ShellPtr outer) {
      if (f.resume) {
        auto r = std::move(f.resume);
        f.resume = [r = std::move(r), inner, outer] { return Finish(r(), inner, outer); };
        return f;
      }
      outer->last_status = inner->last_status;
      f.stop = f.out.follow_logcat || f.out.hang || f.out.drop_stream;
      return f;
    }
  };
  return Finisher::Finish(std::move(ran), inner, sh);
}

// An expanded command; `output` holds what its expansion printed (a $(…)'s stderr).
Flow RunArgv(std::vector<std::string> argv, const Redirections& redirections,
             CommandOutput output, const ShellPtr& sh) {
  Flow flow;
  if (redirections.unsupported) {
    output.Err(std::string(kShellName) + ": devsim: this redirection is not simulated\n");
    output.exit_code = 2;
  } else if (argv.empty()) {
    output.exit_code = sh->substitution_status.value_or(0);
  } else {
    const std::string name = argv[0];
    if (name == "exec") {
      argv.erase(argv.begin());
      flow = RunArgv(std::move(argv), redirections, std::move(output), sh);
      flow.stop = true;
      return flow;
    }
    if (name == "exit") {
      flow.stop = true;
      if (argv.size() > 1) {
        const auto code = ParseLong(argv[1]);
        if (!code) {
          flow.out.Err(std::string(kShellName) + ": exit: " + argv[1] + ": bad number\n");
          sh->last_status = 1;
        } else {
          sh->last_status = static_cast<int>(static_cast<unsigned long>(*code) & 0xff);
        }
      }  // else: the last status stays
      return flow;
    }
    if (name == "sh" || name == kShellName) {
      // Its redirections apply to what it prints at once; a loop's later slices go unfiltered.
      flow = RunNestedShell(argv, sh);
      Merge(output, flow.out);
      flow.out = ApplyRedirections(std::move(output), redirections);
      return flow;
    }
    if (redirections.stdin_file && name != "read") {
      output.Err(std::string(kShellName) + ": devsim: only read takes <FILE\n");
      output.exit_code = 2;
    } else if (name == "export") {
      for (std::size_t i = 1; i < argv.size(); ++i) {
        const std::size_t at = argv[i].find('=');
        if (at != std::string::npos) {
          sh->env->variables[argv[i].substr(0, at)] = argv[i].substr(at + 1);
        }
      }
    } else if (name == "true" || name == ":" || name == "cd") {
      // nothing to do
    } else if (name == "false") {
      output.exit_code = 1;
    } else if (name == "echo") {
      Merge(output, Echo(argv));
    } else if (name == "read") {
      const CommandOutput read = Read(argv, redirections, *sh);
      Merge(output, read);
      output.exit_code = read.exit_code;
    } else if (name == "sleep") {
      const auto delay = argv.size() > 1 ? ParseSleep(argv[1]) : std::nullopt;
      if (argv.size() < 2) {
        output.Err("sleep: Need 1 argument\n");
        output.exit_code = 1;
      } else if (!delay) {
        output.Err("sleep: bad number '" + argv[1] + "'\n");
        output.exit_code = 1;
      } else {
        sh->runner->ProcessStarted();  // toybox sleep: not a builtin of mksh
        output.Wait(*delay);
      }
    } else {
      sh->runner->ProcessStarted();
      const CommandOutput ran = sh->runner->Run(argv);
      Merge(output, ran);
      output.exit_code = ran.exit_code;
    }
  }
  flow.out = ApplyRedirections(std::move(output), redirections);
  sh->last_status = flow.out.exit_code;
  // A command that never ends (a followed logcat, a hung or dropped one): nothing after it runs.
  flow.stop = flow.out.follow_logcat || flow.out.hang || flow.out.drop_stream;
  return flow;
}

// A simple command, its words expanded now (a loop sees its variables change).
Flow RunSimple(const Node& node, const ShellPtr& sh) {
  sh->substitution_status.reset();
  sh->substitution_stderr.clear();
  Redirections redirections;
  std::vector<std::pair<std::string, std::string>> assignments;
  std::vector<std::string> argv;
  for (const std::string& raw : node.words) {
    if (TakeRedirection(raw, *sh, redirections)) continue;
    const std::size_t eq = raw.find('=');
    if (argv.empty() && eq != std::string::npos && eq > 0 &&
        !std::isdigit(static_cast<unsigned char>(raw[0])) &&
        std::all_of(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(eq), IsNameChar)) {
      assignments.emplace_back(raw.substr(0, eq), Expand(raw.substr(eq + 1), *sh).text);
      continue;
    }
    Expanded word = Expand(raw, *sh);
    if (word.is_word) argv.push_back(std::move(word.text));
  }
  CommandOutput output;
  output.Err(sh->substitution_stderr);
  // Leading NAME=value words set the variable for the command; we keep them for the shell.
  for (auto& [name, value] : assignments) sh->env->variables[name] = std::move(value);
  return RunArgv(std::move(argv), redirections, std::move(output), sh);
}

Flow ExecNode(NodePtr node, ShellPtr sh);

// One iteration, then a pause: the caller releases its output (and its sleep) before the next.
Flow RunWhile(NodePtr node, ShellPtr sh) {
  Flow condition = ExecList(node->condition, 0, sh);
  return Then(std::move(condition), [node, sh]() -> Flow {
    if (sh->last_status != 0) {
      sh->last_status = 0;
      return Flow{};
    }
    Flow body = ExecList(node->body, 0, sh);
    return Then(std::move(body), [node, sh]() -> Flow {
      Flow pause;
      pause.resume = [node, sh] { return RunWhile(node, sh); };
      return pause;
    });
  });
}

Flow ExecNode(NodePtr node, ShellPtr sh) {
  Flow flow;
  switch (node->kind) {
    case Node::Kind::kSimple:
      flow = RunSimple(*node, sh);
      break;
    case Node::Kind::kGroup:
      flow = ExecList(node->body, 0, sh);
      break;
    case Node::Kind::kWhile:
      flow = RunWhile(node, sh);
      break;
    case Node::Kind::kIf: {
      Flow condition = ExecList(node->condition, 0, sh);
      flow = Then(std::move(condition), [node, sh]() -> Flow {
        if (sh->last_status == 0) return ExecList(node->body, 0, sh);
        if (node->otherwise) return ExecList(node->otherwise, 0, sh);
        sh->last_status = 0;
        return Flow{};
      });
      break;
    }
  }
  if (!node->negate) return flow;
  return Then(std::move(flow), [sh]() -> Flow {
    sh->last_status = sh->last_status == 0 ? 1 : 0;
    return Flow{};
  });
}

Flow ExecList(ListPtr list, std::size_t from, ShellPtr sh) {
  for (std::size_t i = from; i < list->items.size(); ++i) {
    const auto& [joint, node] = list->items[i];
    // A command skipped by && or || leaves $? as it was, which is what makes `a && b || c` work.
    if ((joint == Joint::kAnd && sh->last_status != 0) ||
        (joint == Joint::kOr && sh->last_status == 0)) {
      continue;
    }
    Flow flow = ExecNode(node, sh);
    return Then(std::move(flow), [list, i, sh] { return ExecList(list, i + 1, sh); });
  }
  return Flow{};
}

CommandOutput ToOutput(Flow flow, ShellPtr sh) {
  CommandOutput out = std::move(flow.out);
  if (flow.resume) {
    out.next = [resume = std::move(flow.resume), sh] { return ToOutput(resume(), sh); };
  } else {
    out.exit_code = sh->last_status;
  }
  return out;
}

}  // namespace

CommandOutput RunShellScript(std::string_view script, ShellEnvironment& env,
                             CommandRunner& runner) {
  CommandOutput total;
  auto tokens = Tokenize(script);
  if (!tokens) {
    total.Err(std::string(kShellName) + ": syntax error: unterminated quoted string\n");
    total.exit_code = 1;
    return total;
  }
  Parser parser(std::move(*tokens));
  ListPtr list = parser.ParseScript();
  if (!list) {
    total.Err(std::string(kShellName) + ": " + parser.error() + "\n");
    total.exit_code = parser.error_status();
    return total;
  }
  auto sh = std::make_shared<Shell>();
  sh->env = &env;
  sh->runner = &runner;
  return ToOutput(ExecList(list, 0, sh), sh);
}

CommandOutput RunShellScriptToEnd(std::string_view script, ShellEnvironment& env,
                                  CommandRunner& runner, int max_steps) {
  CommandOutput total = RunShellScript(script, env, runner);
  for (int step = 0; total.next; ++step) {
    if (step >= max_steps) {
      total.next = nullptr;
      total.Err(std::string(kShellName) + ": devsim: loop did not end\n");
      total.exit_code = 2;
      break;
    }
    auto next = std::move(total.next);
    total.next = nullptr;
    CommandOutput more = next();
    Merge(total, more);
    total.exit_code = more.exit_code;
    total.next = std::move(more.next);
  }
  return total;
}

}  // namespace droidlab::devsim
