#include "tools/devsim/shell_interpreter.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <vector>

namespace droidlab::devsim {
namespace {

constexpr std::string_view kShellName = "/system/bin/sh";

enum class TokenKind { kWord, kSemicolon, kAnd, kOr, kPipe };

struct Token {
  TokenKind kind = TokenKind::kWord;
  std::string text;
  bool quoted = false;  // any part was quoted: then it is never a redirection
};

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string Lookup(const ShellEnvironment& env, const std::string& name, int last_status) {
  if (name == "?") return std::to_string(last_status);
  const auto it = env.variables.find(name);
  return it == env.variables.end() ? std::string() : it->second;
}

// Expands one $… at script[i] (script[i] == '$'); returns how many characters it used.
std::size_t Expand(std::string_view script, std::size_t i, const ShellEnvironment& env,
                   int last_status, std::string& out) {
  if (i + 1 >= script.size()) {
    out.push_back('$');
    return 1;
  }
  const char next = script[i + 1];
  if (next == '?') {
    out += Lookup(env, "?", last_status);
    return 2;
  }
  if (next == '{') {
    const std::size_t close = script.find('}', i + 2);
    if (close == std::string_view::npos) {
      out.push_back('$');
      return 1;
    }
    out += Lookup(env, std::string(script.substr(i + 2, close - i - 2)), last_status);
    return close - i + 1;
  }
  std::size_t end = i + 1;
  while (end < script.size() && IsNameChar(script[end])) ++end;
  if (end == i + 1) {
    out.push_back('$');
    return 1;
  }
  out += Lookup(env, std::string(script.substr(i + 1, end - i - 1)), last_status);
  return end - i;
}

// Splits the script into words and operators. Expansion happens here, as the words are read,
// which is close enough to sh for scripts without word splitting of expanded values.
std::optional<std::vector<Token>> Tokenize(std::string_view script, const ShellEnvironment& env,
                                           int last_status) {
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
      tokens.push_back({TokenKind::kSemicolon, {}, false});
      ++i;
    } else if (c == '&' && i + 1 < script.size() && script[i + 1] == '&') {
      finish_word();
      tokens.push_back({TokenKind::kAnd, {}, false});
      i += 2;
    } else if (c == '|') {
      finish_word();
      const bool is_or = i + 1 < script.size() && script[i + 1] == '|';
      tokens.push_back({is_or ? TokenKind::kOr : TokenKind::kPipe, {}, false});
      i += is_or ? 2 : 1;
    } else if (c == '#' && !in_word) {
      while (i < script.size() && script[i] != '\n') ++i;
    } else if (c == '\'') {
      const std::size_t close = script.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      word.text.append(script.substr(i + 1, close - i - 1));
      word.quoted = in_word = true;
      i = close + 1;
    } else if (c == '"') {
      word.quoted = in_word = true;
      ++i;
      for (;;) {
        if (i >= script.size()) return std::nullopt;
        const char d = script[i];
        if (d == '"') {
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < script.size() &&
            std::string_view("\"\\$`\n").find(script[i + 1]) != std::string_view::npos) {
          if (script[i + 1] != '\n') word.text.push_back(script[i + 1]);
          i += 2;
        } else if (d == '$') {
          i += Expand(script, i, env, last_status, word.text);
        } else {
          word.text.push_back(d);
          ++i;
        }
      }
    } else if (c == '\\') {
      if (i + 1 < script.size() && script[i + 1] != '\n') {
        word.text.push_back(script[i + 1]);
        word.quoted = in_word = true;
      }
      i += 2;
    } else if (c == '$') {
      const std::size_t before = word.text.size();
      i += Expand(script, i, env, last_status, word.text);
      // An unquoted expansion to nothing is no word at all, as in sh.
      if (word.text.size() != before) in_word = true;
    } else {
      word.text.push_back(c);
      in_word = true;
      ++i;
    }
  }
  finish_word();
  return tokens;
}

struct Redirections {
  bool drop_stdout = false;
  bool drop_stderr = false;
  bool stderr_to_stdout = false;
};

// Removes the redirections we understand from argv; returns false on one we do not.
bool TakeRedirections(std::vector<Token>& words, Redirections& redirections) {
  std::vector<Token> kept;
  for (auto& word : words) {
    if (!word.quoted) {
      const std::string& t = word.text;
      if (t == "2>/dev/null") {
        redirections.drop_stderr = true;
        continue;
      }
      if (t == ">/dev/null" || t == "1>/dev/null") {
        redirections.drop_stdout = true;
        continue;
      }
      if (t == "2>&1") {
        redirections.stderr_to_stdout = true;
        continue;
      }
      if (t == "</dev/null" || t == "0</dev/null") continue;  // no simulated command reads stdin
      if (t.find('>') != std::string::npos || t.find('<') != std::string::npos) return false;
    }
    kept.push_back(std::move(word));
  }
  words = std::move(kept);
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

std::optional<long> ParseLong(std::string_view text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
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

struct Outcome {
  CommandOutput output;
  bool stop = false;  // exit or exec: nothing after this runs
};

Outcome RunSimpleCommand(std::vector<std::string> argv, ShellEnvironment& env,
                         CommandRunner& runner) {
  Outcome outcome;
  CommandOutput& output = outcome.output;
  // Leading NAME=value words set the variable for the command; we keep them for the shell.
  while (!argv.empty()) {
    const std::size_t eq = argv.front().find('=');
    if (eq == std::string::npos || eq == 0) break;
    env.variables[argv.front().substr(0, eq)] = argv.front().substr(eq + 1);
    argv.erase(argv.begin());
  }
  if (argv.empty()) return outcome;
  const std::string& name = argv[0];
  if (name == "exec") {
    argv.erase(argv.begin());
    outcome = RunSimpleCommand(std::move(argv), env, runner);
    outcome.stop = true;
    return outcome;
  }
  if (name == "exit") {
    outcome.stop = true;
    if (argv.size() > 1) {
      const auto code = ParseLong(argv[1]);
      if (!code) {
        output.Err(std::string(kShellName) + ": exit: " + argv[1] + ": bad number\n");
        output.exit_code = 1;
      } else {
        output.exit_code = static_cast<int>(static_cast<unsigned long>(*code) & 0xff);
      }
    } else {
      output.exit_code = -1;  // "the last status": the caller fills it in
    }
    return outcome;
  }
  if (name == "export") {
    for (std::size_t i = 1; i < argv.size(); ++i) {
      const std::size_t eq = argv[i].find('=');
      if (eq != std::string::npos) env.variables[argv[i].substr(0, eq)] = argv[i].substr(eq + 1);
    }
    return outcome;
  }
  if (name == "true" || name == ":" || name == "cd") return outcome;
  if (name == "false") {
    output.exit_code = 1;
    return outcome;
  }
  if (name == "echo") {
    output = Echo(argv);
    return outcome;
  }
  if (name == "sleep") {
    const auto seconds = argv.size() > 1 ? ParseLong(argv[1]) : std::nullopt;
    if (!seconds || *seconds < 0) {
      output.Err("sleep: Need 1 argument\n");
      output.exit_code = 1;
    } else {
      output.Wait(std::chrono::seconds(*seconds));
    }
    return outcome;
  }
  output = runner.Run(argv);
  return outcome;
}

}  // namespace

CommandOutput RunShellScript(std::string_view script, ShellEnvironment& env,
                             CommandRunner& runner) {
  CommandOutput total;
  int last_status = 0;
  const auto tokens = Tokenize(script, env, last_status);
  if (!tokens) {
    total.Err(std::string(kShellName) + ": syntax error: unterminated quoted string\n");
    total.exit_code = 1;
    return total;
  }
  // Walk command by command. `pending` is the operator before the current command.
  TokenKind pending = TokenKind::kSemicolon;
  std::vector<Token> words;
  auto run_words = [&](std::vector<Token>& command_words) -> bool {
    if (command_words.empty()) return false;
    const bool skip = (pending == TokenKind::kAnd && last_status != 0) ||
                      (pending == TokenKind::kOr && last_status == 0);
    if (skip) return false;
    Redirections redirections;
    if (!TakeRedirections(command_words, redirections)) {
      total.Err(std::string(kShellName) + ": devsim: this redirection is not simulated\n");
      last_status = 2;
      return false;
    }
    std::vector<std::string> argv;
    for (auto& word : command_words) argv.push_back(std::move(word.text));
    Outcome outcome = RunSimpleCommand(std::move(argv), env, runner);
    if (outcome.output.exit_code == -1) outcome.output.exit_code = last_status;
    CommandOutput redirected = ApplyRedirections(std::move(outcome.output), redirections);
    total.Append(redirected);
    last_status = redirected.exit_code;
    if (redirected.follow_logcat) {
      total.follow_logcat = true;
      total.follow_filter = redirected.follow_filter;
      total.follow_buffers = redirected.follow_buffers;
      total.follow_format = redirected.follow_format;
      return true;  // a following command never ends, so nothing after it runs
    }
    if (redirected.hang || redirected.drop_stream) {
      total.hang = redirected.hang;
      total.drop_stream = redirected.drop_stream;
      return true;  // nothing after a hung or dropped command runs
    }
    return outcome.stop;
  };
  for (auto& token : *tokens) {
    if (token.kind == TokenKind::kWord) {
      words.push_back(std::move(token));
      continue;
    }
    if (token.kind == TokenKind::kPipe) {
      total.Err(std::string(kShellName) + ": devsim: pipelines are not simulated\n");
      total.exit_code = 2;
      return total;
    }
    const bool stop = run_words(words);
    words.clear();
    if (stop) {
      total.exit_code = last_status;
      return total;
    }
    pending = token.kind;
  }
  run_words(words);
  total.exit_code = last_status;
  return total;
}

}  // namespace droidlab::devsim
