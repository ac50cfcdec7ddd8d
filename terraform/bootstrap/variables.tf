variable "region" {
  type        = string
  description = "AWS region for the results bucket, the state bucket and every benchmark box. Must be one of terraform/allowed.json's regions (the price table covers those)."
  default     = "us-east-1"

  validation {
    condition     = contains(local.allowed.regions, var.region)
    error_message = "region must be one of the regions in terraform/allowed.json (e.g. us-east-1, eu-west-1)."
  }
}

variable "project" {
  type        = string
  description = "Value of the Project tag on everything samebox creates; IAM conditions key on it, so the roles can touch nothing else."
  default     = "samebox"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{2,30}$", var.project))
    error_message = "project must be 3-31 characters of lowercase letters, digits and dashes, starting with a letter."
  }
}

variable "github_repository" {
  type        = string
  description = "owner/name of the GitHub repository whose workflows may assume the roles."

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", var.github_repository))
    error_message = "github_repository must look like owner/name."
  }
}

variable "github_branch" {
  type        = string
  description = "Only workflow runs on this branch may assume the bench and reaper roles (workflow_dispatch and schedule run on it)."
  default     = "main"
}

variable "create_github_oidc_provider" {
  type        = bool
  description = "Create the account's GitHub OIDC provider. Set false when the account already has one (there can be only one per URL)."
  default     = true
}

variable "vpc_id" {
  type        = string
  description = "VPC for the benchmark boxes; empty means the region's default VPC. Its subnets need a route to the internet (apt, git, PyPI)."
  default     = ""
}

variable "subnet_id" {
  type        = string
  description = "Subnet the boxes launch into (output as SAMEBOX_SUBNET_ID). Empty: EC2 picks a default subnet of the default VPC. Required with vpc_id; it needs a route to the internet and c6a capacity in its zone."
  default     = ""

  validation {
    condition     = var.subnet_id == "" || can(regex("^subnet-[0-9a-f]{8,17}$", var.subnet_id))
    error_message = "subnet_id must be empty or a subnet id like subnet-0123456789abcdef0."
  }
}

variable "results_retention_days" {
  type        = number
  description = "Days an uploaded run stays in the results bucket before it expires (the pull request has copied it into the repo by then)."
  default     = 90

  validation {
    condition     = var.results_retention_days >= 7 && var.results_retention_days <= 3650
    error_message = "results_retention_days must be between 7 and 3650."
  }
}

variable "ami_owner" {
  type        = string
  description = "AWS account whose AMIs the bench role may launch: Canonical (099720109477) publishes the Ubuntu 24.04 images."
  default     = "099720109477"
}

locals {
  # The single list of valid inputs, shared with the workflow's validation.
  allowed = jsondecode(file("${path.module}/../allowed.json"))
}

variable "monthly_budget_usd" {
  type        = number
  description = "The account's monthly AWS cost budget in US dollars: alerts at 80 % spent and 100 % forecast; at 100 % spent the bench role can launch nothing more."
  default     = 100

  validation {
    condition     = var.monthly_budget_usd >= 1 && var.monthly_budget_usd <= 100000
    error_message = "monthly_budget_usd must be between 1 and 100000 (US dollars a month)."
  }
}

variable "budget_alert_emails" {
  type        = list(string)
  description = "Email addresses the monthly budget alerts (1 to 10; AWS sends each a confirmation first)."

  validation {
    condition     = length(var.budget_alert_emails) >= 1 && length(var.budget_alert_emails) <= 10 && alltrue([for e in var.budget_alert_emails : can(regex("^[^@[:space:]]+@[^@[:space:]]+\\.[^@[:space:]]+$", e))])
    error_message = "budget_alert_emails must be 1 to 10 email addresses, e.g. [\"you@example.com\"]."
  }
}
