# Install better-compaction on Windows: bc-windows-x64.exe from a GitHub release, checked against
# the release's SHA256SUMS, installed as bc.exe and better-compaction.exe into ~\.local\bin (or
# $env:BC_INSTALL_DIR). Run it again to upgrade.
#
#   irm https://github.com/better-compaction/better-compaction/releases/latest/download/install.ps1 | iex
#
# Environment: BC_INSTALL_DIR, BC_VERSION (default: latest), BC_REPO, BC_DOWNLOAD_URL (as install.sh).
$ErrorActionPreference = 'Stop'

$Repo = if ($env:BC_REPO) { $env:BC_REPO } else { 'better-compaction/better-compaction' }
$Base = if ($env:BC_DOWNLOAD_URL) { $env:BC_DOWNLOAD_URL } else { "https://github.com/$Repo/releases" }
$Version = if ($env:BC_VERSION) { $env:BC_VERSION.TrimStart('v') } else { 'latest' }
$Dir = if ($env:BC_INSTALL_DIR) { $env:BC_INSTALL_DIR } else { Join-Path $HOME '.local\bin' }

if ($env:PROCESSOR_ARCHITECTURE -ne 'AMD64') { throw "install.ps1: no build for $($env:PROCESSOR_ARCHITECTURE) Windows; build from source (see the README)" }
$Asset = 'bc-windows-x64.exe'
$Url = if ($Version -eq 'latest') { "$Base/latest/download" } else { "$Base/download/v$Version" }

$Tmp = Join-Path ([IO.Path]::GetTempPath()) ("bc-install-" + [Guid]::NewGuid())
New-Item -ItemType Directory -Path $Tmp | Out-Null
try {
  Write-Host "downloading $Asset ($Version) from $Url"
  Invoke-WebRequest -UseBasicParsing -Uri "$Url/SHA256SUMS" -OutFile "$Tmp\SHA256SUMS"
  $line = Get-Content "$Tmp\SHA256SUMS" | Where-Object { ($_ -split '\s+')[1] -eq $Asset } | Select-Object -First 1
  if (-not $line) { throw "install.ps1: the release has no $Asset (SHA256SUMS does not list it)" }
  $want = ($line -split '\s+')[0].ToLower()
  Invoke-WebRequest -UseBasicParsing -Uri "$Url/$Asset" -OutFile "$Tmp\$Asset"
  $got = (Get-FileHash -Algorithm SHA256 "$Tmp\$Asset").Hash.ToLower()
  if ($got -ne $want) { throw "install.ps1: checksum mismatch for ${Asset}: SHA256SUMS says $want, the download is $got; nothing was installed" }
  $new = & "$Tmp\$Asset" --version
  if ($LASTEXITCODE -ne 0 -or -not "$new".StartsWith('better-compaction ')) { throw "install.ps1: the downloaded $Asset does not run here; nothing was installed" }

  New-Item -ItemType Directory -Force -Path $Dir | Out-Null
  foreach ($name in 'bc.exe', 'better-compaction.exe') {
    Copy-Item "$Tmp\$Asset" (Join-Path $Dir "$name.new") -Force
    Move-Item (Join-Path $Dir "$name.new") (Join-Path $Dir $name) -Force
  }
  Write-Host "installed $new as $Dir\bc.exe and $Dir\better-compaction.exe"
} finally {
  Remove-Item -Recurse -Force $Tmp -ErrorAction SilentlyContinue
}

$userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
if (-not (($userPath -split ';') -contains $Dir)) {
  Write-Warning "$Dir is not on your PATH; add it with:"
  Write-Host "  [Environment]::SetEnvironmentVariable('Path', `"$Dir;`" + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')"
}
if (Get-Command claude -ErrorAction SilentlyContinue) { Write-Host "Claude Code: run 'bc claude install' to use bc for its compaction." }
Write-Host "Codex: 'bc codex-fork <session id>' writes a compacted fork to resume. Your sessions: 'bc eval' (see 'bc --help')."
