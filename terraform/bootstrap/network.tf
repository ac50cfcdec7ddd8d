data "aws_vpc" "boxes" {
  default = var.vpc_id == ""
  id      = var.vpc_id == "" ? null : var.vpc_id
}

# Every box gets this group: no inbound rule at all, outbound only what the
# install steps need (HTTP for Ubuntu's apt mirrors, HTTPS for git and the
# package registries). DNS goes to the VPC resolver, which groups do not filter.
resource "aws_security_group" "box" {
  #checkov:skip=CKV2_AWS_5:Attached by terraform/run to every box it launches; the group outlives the runs, so it lives here.
  name        = "${var.project}-box"
  description = "samebox benchmark box: no inbound, outbound HTTP/HTTPS only"
  vpc_id      = data.aws_vpc.boxes.id
}

resource "aws_vpc_security_group_egress_rule" "box_http" {
  security_group_id = aws_security_group.box.id
  description       = "apt mirrors"
  ip_protocol       = "tcp"
  from_port         = 80
  to_port           = 80
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_vpc_security_group_egress_rule" "box_https" {
  security_group_id = aws_security_group.box.id
  description       = "git, package registries, S3"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"
}

# Split topology only: the load client reaches the database box on the
# database ports, from members of this same group and nowhere else.
resource "aws_security_group" "split" {
  #checkov:skip=CKV2_AWS_5:Attached by terraform/run to both boxes of a split-topology run; the group outlives the runs, so it lives here.
  name        = "${var.project}-split"
  description = "samebox split topology: database ports between the two boxes only"
  vpc_id      = data.aws_vpc.boxes.id
}

resource "aws_vpc_security_group_ingress_rule" "split_db" {
  for_each = {
    postgresql = 5432
    mysql      = 3306
  }

  security_group_id            = aws_security_group.split.id
  description                  = "${each.key} from the load client"
  ip_protocol                  = "tcp"
  from_port                    = each.value
  to_port                      = each.value
  referenced_security_group_id = aws_security_group.split.id
}

resource "aws_vpc_security_group_egress_rule" "split_db" {
  for_each = {
    postgresql = 5432
    mysql      = 3306
  }

  security_group_id            = aws_security_group.split.id
  description                  = "${each.key} to the database box"
  ip_protocol                  = "tcp"
  from_port                    = each.value
  to_port                      = each.value
  referenced_security_group_id = aws_security_group.split.id
}
