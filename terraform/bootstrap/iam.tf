locals {
  oidc_url      = "token.actions.githubusercontent.com"
  oidc_provider = var.create_github_oidc_provider ? aws_iam_openid_connect_provider.github[0].arn : "arn:aws:iam::${local.account_id}:oidc-provider/${local.oidc_url}"
  ec2_arn       = "arn:aws:ec2:${var.region}:${local.account_id}"
}

resource "aws_iam_openid_connect_provider" "github" {
  count          = var.create_github_oidc_provider ? 1 : 0
  url            = "https://${local.oidc_url}"
  client_id_list = ["sts.amazonaws.com"]
}

# Only workflow runs of this repository on the one branch may assume a role.
data "aws_iam_policy_document" "github_trust" {
  statement {
    actions = ["sts:AssumeRoleWithWebIdentity"]
    principals {
      type        = "Federated"
      identifiers = [local.oidc_provider]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_url}:aud"
      values   = ["sts.amazonaws.com"]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_url}:sub"
      values   = ["repo:${var.github_repository}:ref:refs/heads/${var.github_branch}"]
    }
  }
}

# --- the instance role: each box may write under its own prefix, nothing else ---

data "aws_iam_policy_document" "box_trust" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "box" {
  name               = "${var.project}-box"
  description        = "samebox benchmark box: uploads its own results"
  assume_role_policy = data.aws_iam_policy_document.box_trust.json
}

# For a role assigned to an EC2 instance, aws:userid is "<role-id>:<instance-id>",
# so this prefix belongs to one instance, i.e. to one run: a box cannot read,
# list or overwrite any other run's upload.
data "aws_iam_policy_document" "box" {
  statement {
    sid       = "WriteOwnPrefix"
    actions   = ["s3:PutObject", "s3:AbortMultipartUpload"]
    resources = ["${aws_s3_bucket.results.arn}/boxes/$${aws:userid}/*"]
  }

  # `aws s3 sync` (the box's upload every few minutes) lists what it already
  # uploaded, so it sends only new and changed files: its own prefix only.
  statement {
    sid       = "ListOwnPrefix"
    actions   = ["s3:ListBucket"]
    resources = [aws_s3_bucket.results.arn]
    condition {
      test     = "StringLike"
      variable = "s3:prefix"
      values   = ["boxes/$${aws:userid}/*"]
    }
  }
}

resource "aws_iam_role_policy" "box" {
  name   = "write-own-prefix"
  role   = aws_iam_role.box.id
  policy = data.aws_iam_policy_document.box.json
}

resource "aws_iam_instance_profile" "box" {
  name = "${var.project}-box"
  role = aws_iam_role.box.name
}

# --- the bench role: what .github/workflows/bench.yml may do ---

resource "aws_iam_role" "bench" {
  name                 = "${var.project}-github-bench"
  description          = "GitHub Actions bench workflow: launches and terminates samebox boxes"
  assume_role_policy   = data.aws_iam_policy_document.github_trust.json
  max_session_duration = 21600 # 6 h: a full run plus install, upload and cleanup
}

data "aws_iam_policy_document" "bench" {
  statement {
    sid = "ReadOnlyDescribe"
    # Describe calls have no resource-level permissions.
    actions = [
      "ec2:DescribeAccountAttributes",
      "ec2:DescribeAvailabilityZones",
      "ec2:DescribeImages",
      "ec2:DescribeInstanceCreditSpecifications",
      "ec2:DescribeInstanceTypes",
      "ec2:DescribeInstances",
      "ec2:DescribeNetworkInterfaces",
      "ec2:DescribePlacementGroups",
      "ec2:DescribeSecurityGroups",
      "ec2:DescribeSubnets",
      "ec2:DescribeTags",
      "ec2:DescribeVolumes",
      "ec2:DescribeVpcs",
    ]
    resources = ["*"]
  }

  statement {
    sid = "ReadVcpuQuota"
    # terraform/scripts/quota_check.py: the planned peak of vCPUs against the account's quota.
    actions   = ["servicequotas:GetServiceQuota"]
    resources = ["arn:aws:servicequotas:*:*:ec2/L-1216C47A"]
  }

  statement {
    sid = "ReadTheListedPrice"
    # terraform/scripts/ec2_price.py: the dispatch's instance price, recorded for its runs' cost. No resource-level permissions.
    actions   = ["pricing:GetProducts"]
    resources = ["*"]
  }

  statement {
    sid       = "ReadInstanceAttributes"
    actions   = ["ec2:DescribeInstanceAttribute"]
    resources = ["${local.ec2_arn}:instance/*"]
  }

  statement {
    sid       = "LaunchOnlyAllowedTaggedImdsv2Instances"
    actions   = ["ec2:RunInstances"]
    resources = ["${local.ec2_arn}:instance/*"]
    condition {
      test     = "StringEquals"
      variable = "ec2:InstanceType"
      values   = local.allowed.instance_types
    }
    condition {
      test     = "StringEquals"
      variable = "ec2:MetadataHttpTokens"
      values   = ["required"]
    }
    condition {
      test     = "StringEquals"
      variable = "aws:RequestTag/Project"
      values   = [var.project]
    }
    condition {
      test     = "Null"
      variable = "aws:RequestTag/samebox:run-id"
      values   = ["false"]
    }
    condition {
      test     = "Null"
      variable = "aws:RequestTag/samebox:expires-at"
      values   = ["false"]
    }
    condition {
      test     = "ArnEquals"
      variable = "ec2:InstanceProfile"
      values   = [aws_iam_instance_profile.box.arn]
    }
  }

  statement {
    sid       = "LaunchOnlyEncryptedTaggedVolumes"
    actions   = ["ec2:RunInstances"]
    resources = ["${local.ec2_arn}:volume/*"]
    condition {
      test     = "Bool"
      variable = "ec2:Encrypted"
      values   = ["true"]
    }
    condition {
      test     = "StringEquals"
      variable = "aws:RequestTag/Project"
      values   = [var.project]
    }
  }

  statement {
    sid       = "LaunchIntoOurVpcWithOurGroups"
    actions   = ["ec2:RunInstances"]
    resources = ["${local.ec2_arn}:subnet/*", "${local.ec2_arn}:network-interface/*"]
    condition {
      test     = "ArnEquals"
      variable = "ec2:Vpc"
      values   = [data.aws_vpc.boxes.arn]
    }
  }

  statement {
    sid       = "LaunchWithOurSecurityGroups"
    actions   = ["ec2:RunInstances"]
    resources = [aws_security_group.box.arn]
  }

  statement {
    sid       = "LaunchOnlyCanonicalImages"
    actions   = ["ec2:RunInstances"]
    resources = ["arn:aws:ec2:${var.region}::image/*"]
    condition {
      test     = "StringEquals"
      variable = "ec2:Owner"
      values   = [var.ami_owner]
    }
  }

  statement {
    sid       = "LaunchIntoOurPlacementGroups"
    actions   = ["ec2:RunInstances"]
    resources = ["${local.ec2_arn}:placement-group/*"]
    condition {
      test     = "StringEquals"
      variable = "aws:ResourceTag/Project"
      values   = [var.project]
    }
  }

  statement {
    sid       = "CreatePlacementGroupTagged"
    actions   = ["ec2:CreatePlacementGroup"]
    resources = ["${local.ec2_arn}:placement-group/*"]
    condition {
      test     = "StringEquals"
      variable = "aws:RequestTag/Project"
      values   = [var.project]
    }
  }

  statement {
    sid     = "TagOnlyWhileCreating"
    actions = ["ec2:CreateTags"]
    resources = [
      "${local.ec2_arn}:instance/*",
      "${local.ec2_arn}:volume/*",
      "${local.ec2_arn}:network-interface/*",
      "${local.ec2_arn}:placement-group/*",
    ]
    condition {
      test     = "StringEquals"
      variable = "ec2:CreateAction"
      values   = ["RunInstances", "CreatePlacementGroup"]
    }
  }

  statement {
    sid       = "TerminateOnlyOurs"
    actions   = ["ec2:TerminateInstances", "ec2:DeletePlacementGroup"]
    resources = ["${local.ec2_arn}:instance/*", "${local.ec2_arn}:placement-group/*"]
    condition {
      test     = "StringEquals"
      variable = "aws:ResourceTag/Project"
      values   = [var.project]
    }
  }

  statement {
    sid = "ReadTheBoxProfile"
    # terraform/scripts/preflight.py: SAMEBOX_BOX_ROLE_ID must be this profile's role, or no box's upload is found.
    actions   = ["iam:GetInstanceProfile"]
    resources = [aws_iam_instance_profile.box.arn]
  }

  statement {
    sid       = "PassOnlyTheBoxRole"
    actions   = ["iam:PassRole"]
    resources = [aws_iam_role.box.arn]
    condition {
      test     = "StringEquals"
      variable = "iam:PassedToService"
      values   = ["ec2.amazonaws.com"]
    }
  }

  # terraform/run: every box's one-time expiry schedule, in the project's group, acting through the expiry role.
  statement {
    sid       = "ManageBoxExpirySchedules"
    actions   = ["scheduler:CreateSchedule", "scheduler:GetSchedule", "scheduler:UpdateSchedule", "scheduler:DeleteSchedule"]
    resources = ["arn:aws:scheduler:${var.region}:${local.account_id}:schedule/${aws_scheduler_schedule_group.boxes.name}/*"]
  }

  statement {
    sid       = "PassOnlyTheExpiryRole"
    actions   = ["iam:PassRole"]
    resources = [aws_iam_role.expiry.arn]
    condition {
      test     = "StringEquals"
      variable = "iam:PassedToService"
      values   = ["scheduler.amazonaws.com"]
    }
  }

  # The S3 backend first asks for runs/<run-id>.tfstate with HeadObject, which carries no
  # s3:prefix, so a ListBucket conditioned on a prefix does not apply to it: without ListBucket
  # on the bucket itself S3 answers a missing key 403 instead of 404, which Terraform treats as
  # fatal. The state bucket holds only terraform states, so listing its key names reveals nothing.
  statement {
    sid       = "StateList"
    actions   = ["s3:ListBucket"]
    resources = [aws_s3_bucket.state.arn]
  }

  statement {
    sid       = "StateReadWriteLock"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"]
    resources = ["${aws_s3_bucket.state.arn}/runs/*"]
  }

  statement {
    sid       = "ResultsList"
    actions   = ["s3:ListBucket"]
    resources = [aws_s3_bucket.results.arn]
    condition {
      test     = "StringLike"
      variable = "s3:prefix"
      values   = ["boxes/*"]
    }
  }

  statement {
    sid       = "ResultsRead"
    actions   = ["s3:GetObject"]
    resources = ["${aws_s3_bucket.results.arn}/boxes/*"]
  }
}

resource "aws_iam_role_policy" "bench" {
  name   = "launch-wait-terminate"
  role   = aws_iam_role.bench.id
  policy = data.aws_iam_policy_document.bench.json
}

# --- the reaper role: find our expired boxes and terminate them, nothing else ---

resource "aws_iam_role" "reaper" {
  name               = "${var.project}-github-reaper"
  description        = "GitHub Actions reaper workflow: terminates samebox boxes past their expiry tag"
  assume_role_policy = data.aws_iam_policy_document.github_trust.json
}

data "aws_iam_policy_document" "reaper" {
  statement {
    sid       = "FindInstances"
    actions   = ["ec2:DescribeInstances"]
    resources = ["*"]
  }

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

resource "aws_iam_role_policy" "reaper" {
  name   = "terminate-expired"
  role   = aws_iam_role.reaper.id
  policy = data.aws_iam_policy_document.reaper.json
}
