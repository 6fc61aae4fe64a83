/**
 * The files a shell command certainly reads or changes (src/compaction/core/summary/shell-paths.ts): what
 * the words say for sure, and nothing where an expansion, a pattern or a `cd` makes it uncertain.
 */
import { describe, expect, it } from "vitest";
import { commandFiles, commandText, patchFiles } from "../../src/compaction/core/summary/shell-paths.js";

describe("commandFiles", () => {
  it("reads the files of the readers, past their options and the values those take", () => {
    expect(commandFiles("cat notes.txt")).toEqual({ read: ["notes.txt"], modified: [] });
    expect(commandFiles("head -n 20 src/a.ts && tail -c 100 logs/b.log | wc -l")).toEqual({
      read: ["src/a.ts", "logs/b.log"],
      modified: [],
    });
    expect(commandFiles("cat 'a file.md' \"b.md\"")).toEqual({ read: ["a file.md", "b.md"], modified: [] });
    expect(commandFiles("sed -n '1,20p' src/x.rs")).toEqual({ read: ["src/x.rs"], modified: [] });
    expect(commandFiles("wc -l < data.csv")).toEqual({ read: ["data.csv"], modified: [] });
  });

  it("changes the targets of redirections, tee, touch, rm, mv, cp and sed -i", () => {
    expect(commandFiles("echo hi > out.txt; echo more >>log.md")).toEqual({
      read: [],
      modified: ["out.txt", "log.md"],
    });
    expect(commandFiles("npm test 2>&1 | tee test.log > /dev/null")).toEqual({
      read: [],
      modified: ["test.log"],
    });
    expect(commandFiles("touch a.ts && rm -f old.ts && mv b.ts c.ts")).toEqual({
      read: [],
      modified: ["a.ts", "old.ts", "b.ts", "c.ts"],
    });
    expect(commandFiles("cp -r src/template.json config/app.json")).toEqual({
      read: ["src/template.json"],
      modified: ["config/app.json"],
    });
    expect(commandFiles("sed -i 's/a/b/' src/one.ts src/two.ts")).toEqual({
      read: [],
      modified: ["src/one.ts", "src/two.ts"],
    });
    expect(commandFiles("sed -i.bak -e 's/a/b/' -e 's/c/d/' conf.toml")).toEqual({
      read: [],
      modified: ["conf.toml"],
    });
  });

  it("leaves out expansions, patterns, scripts an interpreter runs, and everything after a cd", () => {
    expect(commandFiles("cat $HOME/notes.txt src/*.ts `which x` {a,b}.md")).toEqual({
      read: [],
      modified: [],
    });
    expect(commandFiles("python scripts/gen.py && node build.js")).toEqual({ read: [], modified: [] });
    expect(commandFiles("cat a.md && cd sub && cat b.md > c.md")).toEqual({ read: ["a.md"], modified: [] });
    expect(commandFiles("ls -la src && git status && grep -rn foo src/a.ts")).toEqual({
      read: [],
      modified: [],
    });
    // An unclosed quote: what follows it is not certain.
    expect(commandFiles("cat a.md; echo 'oops > b.md")).toEqual({ read: ["a.md"], modified: [] });
  });

  it("reads a here-document as data, not as commands, and its target as changed", () => {
    const command = [
      "cat > notes/plan.md <<'EOF'",
      "rm -rf everything.txt",
      "cat secrets.txt",
      "EOF",
      "cat done.txt",
    ].join("\n");
    expect(commandFiles(command)).toEqual({ read: ["done.txt"], modified: ["notes/plan.md"] });
  });

  it("names the files of a Codex patch, in a command or on its own", () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: src/app.ts",
      "@@",
      "-old",
      "+new",
      "*** Add File: src/new.ts",
      "+export {};",
      "*** Delete File: src/gone.ts",
      "*** Update File: src/from.ts",
      "*** Move to: src/to.ts",
      "*** End Patch",
    ].join("\n");
    expect(patchFiles(patch)).toEqual([
      "src/app.ts",
      "src/new.ts",
      "src/gone.ts",
      "src/from.ts",
      "src/to.ts",
    ]);
    expect(commandFiles(`apply_patch <<'EOF'\n${patch}\nEOF`).modified).toEqual([
      "src/app.ts",
      "src/new.ts",
      "src/gone.ts",
      "src/from.ts",
      "src/to.ts",
    ]);
  });
});

describe("commandText", () => {
  it("takes the script of `bash -lc`, joins other argument lists, and passes strings on", () => {
    expect(commandText(["bash", "-lc", "cat notes.txt"])).toBe("cat notes.txt");
    expect(commandText(["/bin/zsh", "-c", "ls"])).toBe("ls");
    expect(commandText(["cat", "a b.md"])).toBe("cat 'a b.md'");
    expect(commandText("ls")).toBe("ls");
    expect(commandText(42)).toBeUndefined();
    expect(commandText(["cat", 1])).toBeUndefined();
  });
});
