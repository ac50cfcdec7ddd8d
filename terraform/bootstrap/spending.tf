# --- spending capped on AWS's side: nothing here depends on GitHub's cron, OIDC or a job finishing ---

# Every box gets a one-time EventBridge Scheduler schedule (terraform/run) that terminates it at its
# expiry; the schedules live in this group and act through this role.
resource "aws_scheduler_schedule_group" "boxes" {
  name = var.project
}

data "aws_iam_policy_document" "expiry_trust" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["scheduler.amazonaws.com"]
    }
    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account_id]
    }
  }
}

resource "aws_iam_role" "expiry" {
  name               = "${var.project}-box-expiry"
  description        = "EventBridge Scheduler: terminates a samebox box at its expiry"
  assume_role_policy = data.aws_iam_policy_document.expiry_trust.json
}

data "aws_iam_policy_document" "expiry" {
  statement {
    sid       = "TerminateOnlyOurs"
    actions   = ["ec2:TerminateInstances"]
    resources = ["${local.ec2_arn}:instance/*"]
    condition {
      test     = "StringEquals"
      variable = "aws:ResourceTag/Project"
      values   = [var.project]
    }
  }
}

resource "aws_iam_role_policy" "expiry" {
  name   = "terminate-expired-box"
  role   = aws_iam_role.expiry.id
  policy = data.aws_iam_policy_document.expiry.json
}

# A monthly cost budget for the account: emails at 80 % of the limit spent and at 100 % forecast, and at
# 100 % spent it attaches a policy to the bench role that denies every launch (the boxes already running
# end at their own limit and expiry schedule). Detaching that policy in the Budgets console lifts it.
resource "aws_budgets_budget" "monthly" {
  name         = "${var.project}-monthly"
  budget_type  = "COST"
  limit_amount = format("%.2f", var.monthly_budget_usd)
  limit_unit   = "USD"
  time_unit    = "MONTHLY"

  notification {
    comparison_operator        = "GREATER_THAN"
    threshold                  = 80
    threshold_type             = "PERCENTAGE"
    notification_type          = "ACTUAL"
    subscriber_email_addresses = var.budget_alert_emails
  }

  notification {
    comparison_operator        = "GREATER_THAN"
    threshold                  = 100
    threshold_type             = "PERCENTAGE"
    notification_type          = "FORECASTED"
    subscriber_email_addresses = var.budget_alert_emails
  }
}

data "aws_iam_policy_document" "deny_launches" {
  statement {
    sid       = "BudgetSpent"
    effect    = "Deny"
    actions   = ["ec2:RunInstances"]
    resources = ["*"]
  }
}

resource "aws_iam_policy" "deny_launches" {
  name        = "${var.project}-budget-spent-deny-launches"
  description = "Attached to the bench role by the monthly budget's action once the budget is spent"
  policy      = data.aws_iam_policy_document.deny_launches.json
}

data "aws_iam_policy_document" "budget_action_trust" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["budgets.amazonaws.com"]
    }
    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account_id]
    }
  }
}

resource "aws_iam_role" "budget_action" {
  name               = "${var.project}-budget-action"
  description        = "AWS Budgets: attaches the deny-launches policy to the bench role when the budget is spent"
  assume_role_policy = data.aws_iam_policy_document.budget_action_trust.json
}

data "aws_iam_policy_document" "budget_action" {
  statement {
    sid       = "AttachOnlyTheDenyPolicyToTheBenchRole"
    actions   = ["iam:AttachRolePolicy", "iam:DetachRolePolicy"]
    resources = [aws_iam_role.bench.arn]
    condition {
      test     = "ArnEquals"
      variable = "iam:PolicyARN"
      values   = [aws_iam_policy.deny_launches.arn]
    }
  }
}

resource "aws_iam_role_policy" "budget_action" {
  name   = "attach-deny-launches"
  role   = aws_iam_role.budget_action.id
  policy = data.aws_iam_policy_document.budget_action.json
}

resource "aws_budgets_budget_action" "deny_launches" {
  budget_name        = aws_budgets_budget.monthly.name
  action_type        = "APPLY_IAM_POLICY"
  approval_model     = "AUTOMATIC"
  notification_type  = "ACTUAL"
  execution_role_arn = aws_iam_role.budget_action.arn

  action_threshold {
    action_threshold_type  = "PERCENTAGE"
    action_threshold_value = 100
  }

  definition {
    iam_action_definition {
      policy_arn = aws_iam_policy.deny_launches.arn
      roles      = [aws_iam_role.bench.name]
    }
  }

  dynamic "subscriber" {
    for_each = toset(var.budget_alert_emails)
    content {
      address           = subscriber.value
      subscription_type = "EMAIL"
    }
  }
}
