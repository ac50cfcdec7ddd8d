SELECT m_users.name, m_orders.total FROM m_users JOIN m_orders ON m_users.id = m_orders.user_id;
