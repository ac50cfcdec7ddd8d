# Core rules only: the AWS ruleset plugin is a download, and CI cannot download.
plugin "terraform" {
  enabled = true
  preset  = "all"
}
